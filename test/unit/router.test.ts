import { expect } from 'chai';
import OpenAPIBackend from 'openapi-backend';
import { contractOperations, loadContract } from '../../src/http/contract';
import { installCompiledRouter } from '../../src/http/router';

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
});
