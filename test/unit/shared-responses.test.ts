import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/paths';

type Operation = { operationId: string; requestBody?: { content?: Record<string, unknown> }; responses: Record<string, { $ref?: string }> };
const contract = JSON.parse(readFileSync(join(ROOT, 'generated', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.values(contract.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
    .map(([, op]) => op),
);

/** The answers any operation can give are documented on every operation that can give them (redocly/rate-limit-plugin.cjs). */
describe('shared responses in the contract', () => {
  it('429, 431 and 503 on every operation', () => {
    for (const status of ['429', '431', '503']) {
      expect(
        operations.filter((op) => !op.responses[status]).map((op) => op.operationId),
        status,
      ).to.deep.equal([]);
    }
    expect(operations.length).to.be.greaterThan(100);
  });

  it('415 on every operation that takes a JSON body, and on none without a body', () => {
    const json = (op: Operation) => op.requestBody?.content?.['application/json'] !== undefined;
    expect(operations.filter((op) => json(op) && !op.responses['415']).map((op) => op.operationId)).to.deep.equal([]);
    expect(operations.filter((op) => !op.requestBody && op.responses['415']).map((op) => op.operationId)).to.deep.equal([]);
  });
});
