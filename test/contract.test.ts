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

  it('has unique operationIds', () => {
    const ids = contractOperations().map((o) => o.operationId);
    expect(ids.length).to.equal(new Set(ids).size);
  });

  it('uses only declared tags, each described and grouped', () => {
    const doc = loadContract() as any;
    const declared = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    const grouped = new Set(doc['x-tagGroups'].flatMap((g: any) => g.tags));
    for (const { operation } of contractOperations()) for (const t of operation.tags) expect(declared.has(t), t).to.equal(true);
    for (const [name, description] of declared) {
      expect(description, name).to.be.a('string').and.not.equal('');
      expect(grouped.has(name), `${name} in x-tagGroups`).to.equal(true);
    }
  });
});
