import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIV3 } from 'openapi-types';
import { GENERATED_DIR } from '../paths';

/** The code samples an operation of the contract carries (Redocly's `x-codeSamples`). */
export interface CodeSample {
  lang: string;
  label?: string;
  source: string;
}

/** What our operations carry besides OpenAPI's fields. */
type OperationExtensions = { 'x-codeSamples'?: CodeSample[] };

/** An operation of the contract. */
export type ContractOperation = OpenAPIV3.OperationObject<OperationExtensions>;

/** The bundled contract (generated/openapi.json, OpenAPI 3.0), loaded once. */
export type OpenApiDocument = OpenAPIV3.Document<OperationExtensions>;

let cached: OpenApiDocument | undefined;

export function loadContract(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(join(GENERATED_DIR, 'openapi.json'), 'utf8')) as OpenApiDocument;
  return cached;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of the document: method, path and operationId. */
export function contractOperations(
  doc: Pick<OpenApiDocument, 'paths'> = loadContract(),
): { method: string; path: string; operationId: string; operation: ContractOperation }[] {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item?.[method];
      if (operation) ops.push({ method: method.toUpperCase(), path, operationId: operation.operationId as string, operation });
    }
  }
  return ops;
}

/**
 * Path templates (`/jobs/{jobIdOrCode}/phases`): the one reading of their `{parameter}` segments
 * for every tool that walks the contract's paths (tests, scripts/prism-log.mjs).
 */
const TEMPLATE_PARAMETER = /\{([^}]+)\}/g;

/** The template with each parameter replaced by `value(name)`. */
export const fillTemplate = (path: string, value: (name: string) => string): string => path.replace(TEMPLATE_PARAMETER, (_, name: string) => value(name));

/** The template with its parameter names dropped (`/a/{x}` and `/a/{y}` are one route to HTTP). */
export const templateShape = (path: string): string => fillTemplate(path, () => '{}');

/**
 * A matcher of concrete paths (a parameter is one segment) and how literal the template is: routing
 * prefers the most literal template, `/jobs/batch` before `/jobs/{jobIdOrCode}` (OpenAPI 3.0, Paths Object).
 */
export function templateMatcher(path: string): { pattern: RegExp; literal: number } {
  // split() with the capturing pattern gives [literal, name, literal, name, ..., literal].
  const literals = path.split(TEMPLATE_PARAMETER).filter((_, i) => i % 2 === 0);
  const escaped = literals.map((l) => l.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'));
  return { pattern: new RegExp(`^${escaped.join('[^/]+')}$`), literal: literals.join('').length };
}
