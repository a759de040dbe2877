import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR } from '../paths';

/** The bundled contract (generated/openapi.json), loaded once. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: Record<string, any>;
  [key: string]: unknown;
}

let cached: OpenApiDocument | undefined;

export function loadContract(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(join(GENERATED_DIR, 'openapi.json'), 'utf8')) as OpenApiDocument;
  return cached;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of the document: method, path and operationId. */
export function contractOperations(doc = loadContract()): { method: string; path: string; operationId: string; operation: any }[] {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) ops.push({ method: method.toUpperCase(), path, operationId: operation.operationId as string, operation });
    }
  }
  return ops;
}
