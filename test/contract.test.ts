import { expect } from 'chai';
import { resolveRef } from './support/contract-refs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractOperations, loadContract, templateShape as template } from '../src/http/contract';
import { ROOT } from '../src/paths';

/**
 * The spec's list of operations (every method and path of its endpoint tables, both spellings
 * where two are listed) is kept as a fixture; the bundled document must contain every one.
 * Path parameters are compared by position, not name (`/global-phases/{id}` in the spec and
 * `/global-phases/{phaseIdOrCode}` in the document are the same template to HTTP).
 */
interface SpecOperation {
  method: string;
  path: string;
  section: string;
}

describe('contract coverage of the spec', () => {
  const spec: SpecOperation[] = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'spec-operations.json'), 'utf8'));
  const documented = new Set(contractOperations().map((o) => `${o.method} ${template(o.path)}`));

  it("lists the spec's 112 operations in the fixture", () => {
    expect(spec).to.have.length(112);
  });

  for (const op of spec) {
    it(`documents ${op.method} ${op.path} (${op.section})`, () => {
      expect(documented.has(`${op.method} ${template(op.path)}`)).to.equal(true);
    });
  }

  it('gives every operation an operationId, summary, description, tags and its error responses', () => {
    const problems: string[] = [];
    for (const { method, path, operationId, operation } of contractOperations()) {
      const where = `${method} ${path}`;
      if (!operationId) problems.push(`${where}: no operationId`);
      if (!operation.summary) problems.push(`${where}: no summary`);
      if (!operation.description) problems.push(`${where}: no description`);
      if (!operation.tags?.length) problems.push(`${where}: no tags`);
      const statuses = Object.keys(operation.responses ?? {});
      if (!statuses.includes('400')) problems.push(`${where}: no 400`);
      const secured = operation.security === undefined || operation.security.length > 0;
      if (secured && !statuses.includes('401')) problems.push(`${where}: no 401`);
      if (/\{/.test(path) && !statuses.includes('404')) problems.push(`${where}: no 404`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('declares Idempotency-Key, with its 409 (in use) and 422 (reused), on every POST, PATCH and DELETE the service makes idempotent', () => {
    const doc = loadContract() as any;
    const resolve = (x: any) => resolveRef(doc, x);
    const problems: string[] = [];
    for (const { method, path, operationId, operation } of contractOperations()) {
      // The token endpoint is OAuth's (RFC 6749): a retry simply gets another token.
      if (!['POST', 'PATCH', 'DELETE'].includes(method) || operationId === 'issueToken') continue;
      const parameters = [...(doc.paths[path].parameters ?? []), ...(operation.parameters ?? [])].map(resolve);
      if (!parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key')) problems.push(`${operationId}: no Idempotency-Key header`);
      for (const status of ['409', '422']) if (!operation.responses?.[status]) problems.push(`${operationId}: no ${status}`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('gives no request-body property a default: openapi-typescript (defaultNonNullable, its default) would make it required', () => {
    const doc = loadContract() as any;
    const withDefault: string[] = [];
    const visit = (schema: any, at: string, seen: Set<unknown>) => {
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
      seen.add(schema);
      if (schema.$ref) return visit(resolveRef(doc, schema), schema.$ref, seen);
      for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
        const p = property?.$ref ? resolveRef(doc, property) : property;
        if (p && 'default' in p) withDefault.push(`${at}.${name}`);
        visit(p, `${at}.${name}`, seen);
      }
      for (const key of ['items', 'additionalProperties']) visit(schema[key], `${at}[]`, seen);
      for (const key of ['allOf', 'oneOf', 'anyOf']) (schema[key] ?? []).forEach((s: unknown) => visit(s, at, seen));
    };
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(item))
        visit(op?.requestBody?.content?.['application/json']?.schema, `${method.toUpperCase()} ${path}`, new Set());
    expect(withDefault).to.deep.equal([]);
  });

  it('has unique operationIds', () => {
    const ids = contractOperations().map((o) => o.operationId);
    expect(ids.length).to.equal(new Set(ids).size);
  });

  it('uses only declared tags, each described and grouped', () => {
    const doc = loadContract() as any;
    const declared = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    const grouped = new Set(doc['x-tagGroups'].flatMap((g: any) => g.tags));
    for (const { operation } of contractOperations()) for (const t of operation.tags ?? []) expect(declared.has(t), t).to.equal(true);
    for (const [name, description] of declared) {
      expect(description, name).to.be.a('string').and.not.equal('');
      expect(grouped.has(name), `${name} in x-tagGroups`).to.equal(true);
    }
  });
});
