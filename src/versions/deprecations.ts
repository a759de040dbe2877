import type { Contract } from './types';
import { contractOf, servedVersions } from './registry';

/**
 * What one operation's contract at one version marks `deprecated: true`, found once per version
 * (prepareDeprecations, at start) so that a request only looks up its operation:
 * - the operation itself;
 * - its query and header parameters (`query.<name>`, `header.<name>`), used when given;
 * - its JSON body's fields at any depth (`body.<path>`, `[]` for an array's elements), used when present;
 * - the fields its success replies carry (`response.<Schema>.<field>`, named by the component
 *   schema that holds them): the caller reads them, so every request of the operation uses them.
 * Most operations have none of these: their requests cost one map look-up.
 */
export interface Deprecations {
  operation: boolean;
  parameters: { in: 'query' | 'header'; name: string }[];
  /** Each deprecated body field's path, split (`['items', '[]', 'note']`). */
  bodyFields: string[][];
  /** `response.<Schema>.<field>` of every deprecated field a success reply can carry. */
  responseFields: string[];
}

const NONE: Deprecations = { operation: false, parameters: [], bodyFields: [], responseFields: [] };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const REF = '#/components/schemas/';
/** Deeper than any body the service takes (inputGuard bounds nesting), and a bound on cycles. */
const MAX_DEPTH = 12;

const byVersion = new Map<string, Map<string, Deprecations>>();

/** A version's contract's deprecations, by operationId (only the operations that have any). */
export function deprecationsIn(doc: Contract): Map<string, Deprecations> {
  const resolve = (node: any): any =>
    typeof node?.$ref === 'string'
      ? node.$ref
          .slice(2)
          .split('/')
          .reduce((o: any, k: string) => o?.[k], doc)
      : node;

  /** Every path of a deprecated property under `schema` (through $ref, allOf/oneOf/anyOf, items, properties). */
  const bodyPaths = (schema: any, prefix: string[], out: string[][], stack: any[]): void => {
    const s = resolve(schema);
    if (!s || typeof s !== 'object' || stack.includes(s) || stack.length > MAX_DEPTH) return;
    const inner = [...stack, s];
    for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) bodyPaths(part, prefix, out, inner);
    if (s.items) bodyPaths(s.items, [...prefix, '[]'], out, inner);
    for (const [name, property] of Object.entries<any>(s.properties ?? {})) {
      if (property?.deprecated === true || resolve(property)?.deprecated === true) out.push([...prefix, name]);
      bodyPaths(property, [...prefix, name], out, inner);
    }
  };

  /** `<Schema>.<field>` of every deprecated property a value of `schema` can hold (`holder`: the component schema being walked). */
  const replyFields = (schema: any, holder: string, out: Set<string>, stack: any[]): void => {
    const name = typeof schema?.$ref === 'string' && schema.$ref.startsWith(REF) ? schema.$ref.slice(REF.length) : holder;
    const s = resolve(schema);
    if (!s || typeof s !== 'object' || stack.includes(s) || stack.length > MAX_DEPTH) return;
    const inner = [...stack, s];
    for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) replyFields(part, name, out, inner);
    if (s.items) replyFields(s.items, name, out, inner);
    if (typeof s.additionalProperties === 'object') replyFields(s.additionalProperties, name, out, inner);
    for (const [field, property] of Object.entries<any>(s.properties ?? {})) {
      if (property?.deprecated === true || resolve(property)?.deprecated === true) out.add(`response.${name}.${field}`);
      replyFields(property, name, out, inner);
    }
  };

  const out = new Map<string, Deprecations>();
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map(resolve)
        .filter((p: any) => p?.deprecated === true && (p.in === 'query' || p.in === 'header'))
        .map((p: any) => ({ in: p.in as 'query' | 'header', name: p.name as string }));
      const bodyFields: string[][] = [];
      bodyPaths(resolve(op.requestBody)?.content?.['application/json']?.schema, [], bodyFields, []);
      const reply = new Set<string>();
      for (const [status, response] of Object.entries<any>(op.responses ?? {}))
        if (/^2/.test(status)) replyFields(resolve(response)?.content?.['application/json']?.schema, '', reply, []);
      const found: Deprecations = { operation: op.deprecated === true, parameters, bodyFields, responseFields: [...reply].sort() };
      if (found.operation || parameters.length || bodyFields.length || reply.size) out.set(op.operationId, found);
    }
  }
  return out;
}

/** Finds what each served version's contract deprecates (at start: no request walks a schema). */
export function prepareDeprecations(): void {
  for (const { version } of servedVersions()) if (!byVersion.has(version)) byVersion.set(version, deprecationsIn(contractOf(version)));
}

/** What the operation's contract at the version marks deprecated. */
export function deprecationsOf(version: string, operationId: string): Deprecations {
  let index = byVersion.get(version);
  if (!index) byVersion.set(version, (index = deprecationsIn(contractOf(version))));
  return index.get(operationId) ?? NONE;
}

/** Whether a body holds a value at the path (`[]`: any element of an array). */
export function present(value: unknown, path: string[], at = 0): boolean {
  if (at === path.length) return value !== undefined;
  if (value === null || typeof value !== 'object') return false;
  if (path[at] === '[]') return Array.isArray(value) && value.some((e) => present(e, path, at + 1));
  return !Array.isArray(value) && present((value as Record<string, unknown>)[path[at]], path, at + 1);
}
