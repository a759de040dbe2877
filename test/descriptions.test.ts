import { expect } from 'chai';
import { contractOperations, loadContract } from '../src/http/contract';

/**
 * Docs a technical writer can publish: every operation, parameter, schema property and enum value
 * of the bundled document has a description (an enum's description names each of its values).
 */
type Schema = Record<string, any>;

function resolve(doc: Schema, node: Schema | undefined): Schema | undefined {
  let n = node;
  while (n && n.$ref)
    n = (n.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: Schema, k: string) => o?.[k], doc);
  return n;
}

function walkSchema(doc: Schema, schema: Schema | undefined, where: string, gaps: string[], seen: Set<Schema>, describedByParent: boolean): void {
  const s = resolve(doc, schema);
  if (!s || seen.has(s)) return;
  seen.add(s);
  if (s.enum && !(s.type === 'boolean')) {
    const text = `${s.description ?? ''}`;
    const missing = (s.enum as unknown[]).filter((v) => v !== null && !text.includes(String(v)));
    if (missing.length && !describedByParent) gaps.push(`${where}: enum values not described: ${missing.join(', ')}`);
  }
  for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    const p = resolve(doc, prop);
    const described = !!(prop.description || p?.description || prop.allOf?.some((x: Schema) => resolve(doc, x)?.description));
    if (!described) gaps.push(`${where}.${name}: no description`);
    walkSchema(doc, prop, `${where}.${name}`, gaps, seen, !!prop.description && !!p?.enum);
  }
  for (const key of ['items', 'additionalProperties']) if (s[key] && typeof s[key] === 'object') walkSchema(doc, s[key], `${where}[]`, gaps, seen, false);
  for (const key of ['allOf', 'oneOf', 'anyOf']) for (const sub of (s[key] ?? []) as Schema[]) walkSchema(doc, sub, where, gaps, seen, false);
}

describe('descriptions in the contract', () => {
  it('describes every operation, parameter, schema property and enum value', () => {
    const doc = loadContract() as Schema;
    const gaps: string[] = [];
    const seen = new Set<Schema>();
    for (const { method, path, operation } of contractOperations()) {
      const where = `${method} ${path}`;
      if (!operation.description) gaps.push(`${where}: no description`);
      const params = [...(doc.paths[path].parameters ?? []), ...(operation.parameters ?? [])].map((p: Schema) => resolve(doc, p)!);
      for (const p of params) {
        if (!p.description) gaps.push(`${where} parameter ${p.name}: no description`);
        walkSchema(doc, p.schema, `${where} parameter ${p.name}`, gaps, seen, false);
      }
      for (const media of Object.values((resolve(doc, operation.requestBody)?.content ?? {}) as Record<string, Schema>))
        walkSchema(doc, media.schema, `${where} body`, gaps, seen, false);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
        const r = resolve(doc, response)!;
        if (!r.description) gaps.push(`${where} ${status}: no description`);
        for (const media of Object.values((r.content ?? {}) as Record<string, Schema>)) walkSchema(doc, media.schema, `${where} ${status}`, gaps, seen, false);
      }
    }
    expect(gaps).to.deep.equal([]);
  });
});
