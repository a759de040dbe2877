import { expect } from 'chai';
import OpenAPIBackend from 'openapi-backend';
import { contractOperations, loadContract } from '../../src/http/contract';
import { installCompiledRouter, installFastRequestParser } from '../../src/http/router';

/**
 * The compiled router answers exactly as openapi-backend's own for every operation of the
 * contract (with concrete and colliding path values), for unknown paths and for wrong methods,
 * and much faster.
 */
describe('unit: compiled router', function () {
  this.timeout(60_000);
  const original = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: true, validate: false });
  const compiled = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: true, validate: false });
  before(async () => {
    await original.init();
    await compiled.init();
    installCompiledRouter(compiled);
    installFastRequestParser(compiled);
  });

  const outcome = (api: OpenAPIBackend, method: string, path: string) => {
    try {
      return api.router.matchOperation({ method, path, headers: {} }, true)?.operationId;
    } catch (err) {
      return (err as Error).message.slice(0, 3);
    }
  };

  it('routes every request like openapi-backend does', () => {
    const values = ['J-1042', 'batch', 'locations', '7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42', 'items'];
    const requests: [string, string][] = [['GET', '/nope'], ['PUT', '/tax-codes'], ['GET', '/jobs/J-1042/nope'], ['GET', '/jobs/'], ['DELETE', '/units-of-measure/EA']];
    for (const { method, path } of contractOperations()) {
      for (const v of values) {
        const concrete = path.replace(/\{[^}]+\}/g, v);
        for (const m of ['GET', 'POST', 'PATCH', 'DELETE', method]) requests.push([m, concrete]);
      }
    }
    for (const [m, p] of requests) expect(outcome(compiled, m, p), `${m} ${p}`).to.equal(outcome(original, m, p));
  });

  it('routes in microseconds', () => {
    const n = 5000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) compiled.router.matchOperation({ method: 'GET', path: '/jobs/J-1042', headers: {} }, true);
    const perRequestUs = Number(process.hrtime.bigint() - start) / n / 1000;
    expect(perRequestUs).to.be.below(100);
  });

  it('parses every request like openapi-backend does', () => {
    const queries: Record<string, unknown>[] = [{}, { limit: '5', offset: '10' }, { filter: { code_in: ['J-1', 'J-2'], updatedAt_gt: '2026-01-01T00:00:00.000Z' }, orderBy: 'code' }, { includeDeleted: 'true' }];
    const bodies = [undefined, { inputs: [{ code: 'J-1' }] }, [{ id: 'x' }]];
    let compared = 0;
    for (const { method, path } of contractOperations()) {
      const operation = original.router.getOperations().find((op) => op.method === method.toLowerCase() && op.path === path)!;
      for (const v of ['J-1042', '7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42', 'a%20b']) {
        for (const query of queries) {
          for (const body of bodies) {
            const headers = { authorization: 'Bearer k', 'content-type': 'application/json', 'x-request-id': 'r1' };
            const req = () => ({ method, path: path.replace(/\{[^}]+\}/g, v) + '/', query: structuredClone(query) as any, headers: { ...headers }, body: structuredClone(body) });
            for (const op of [undefined, operation]) {
              const fast = compiled.router.parseRequest(req(), op);
              const slow = original.router.parseRequest(req(), op);
              expect(JSON.parse(JSON.stringify(fast)), `${method} ${path} ${JSON.stringify(query)}`).to.deep.equal(JSON.parse(JSON.stringify(slow)));
              compared++;
            }
          }
        }
      }
    }
    expect(compared).to.be.above(1000);
  });

  it('leaves the caller\'s query untouched (validation coerces its own copy)', () => {
    const query = { filter: { code_in: ['J-1'] }, limit: '5' };
    const parsed = compiled.router.parseRequest({ method: 'GET', path: '/jobs', query: query as any, headers: {} }, compiled.router.getOperations().find((op) => op.operationId === 'listJobs'));
    (parsed.query as any).filter.code_in.push('J-2');
    (parsed.query as any).limit = 5;
    expect(query).to.deep.equal({ filter: { code_in: ['J-1'] }, limit: '5' });
  });
});
