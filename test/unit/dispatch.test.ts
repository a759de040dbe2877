import { expect } from 'chai';
import OpenAPIBackend, { Context } from 'openapi-backend';
import { contractOperations, loadContract } from '../../src/http/contract';
import { newBackend } from '../../src/http/backend';
import { createDispatch } from '../../src/http/dispatch';
import { installCompiledRouter, installFastRequestParser } from '../../src/http/router';

/**
 * The dispatcher answers every kind of request exactly as openapi-backend's handleRequest does:
 * the same handler (operation, 404, 405, 401, 400), with the same parsed and coerced request,
 * validation errors and security results, for every operation of the contract.
 */
describe('unit: dispatch', function () {
  this.timeout(120_000);
  let api: OpenAPIBackend;
  let dispatch: ReturnType<typeof createDispatch>;
  // What the credential says: a caller, no caller, or a throwing security handler.
  let auth: 'caller' | 'none' | 'throws' = 'caller';
  const log: string[] = [];

  const outcome = (kind: string) => (c: Context) => ({
    kind,
    operationId: c.operation?.operationId,
    ...(kind === 'operation' ? { request: { params: c.request.params, query: c.request.query, requestBody: c.request.requestBody } } : {}),
    validation: c.validation?.errors ?? undefined,
    security: c.security,
  });

  before(async () => {
    api = newBackend();
    const security = async () => {
      if (auth === 'throws') throw new Error('no');
      return auth === 'caller' ? { organizationId: 'o' } : false;
    };
    api.registerSecurityHandler('oauth2', security);
    api.registerSecurityHandler('apiKey', security);
    api.register({
      postRoutingHandler: (c: Context) => void log.push(`postRouting ${c.operation?.operationId}`),
      notFound: outcome('404'),
      methodNotAllowed: outcome('405'),
      unauthorizedHandler: outcome('401'),
      validationFail: outcome('400'),
    });
    for (const { operationId } of contractOperations()) api.register(operationId, outcome('operation'));
    await api.init();
    installCompiledRouter(api);
    installFastRequestParser(api);
    dispatch = createDispatch(api);
  });

  it('answers every operation, method, credential and input like handleRequest', async () => {
    const queries: Record<string, unknown>[] = [
      {},
      { limit: '5', offset: '10' },
      { limit: 'many' },
      { filter: { code_in: 'J-1,J-2', updatedAt_gt: '2026-01-01T00:00:00.000Z' }, orderBy: 'code' },
      { filter: { nope: '1' } },
      { includeDeleted: 'true' },
    ];
    // A string body is one that was not parsed: validation checks it is JSON (openapi-backend's own path).
    const bodies = [undefined, { name: 'Oak Park' }, { inputs: [{ code: 'J-1', name: 'Oak Park' }] }, [{ id: 'x' }], { code: 42 }, '{"name": "Oak Park"}', '{not json'];
    const contentTypes = ['application/json', 'application/json; charset=utf-8', undefined];
    const values = ['J-1042', '7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42', 'a%20b'];
    let compared = 0;
    const kinds = new Set<string>();
    for (const { method, path } of contractOperations()) {
      for (const value of values.slice(0, path.includes('{') ? 3 : 1)) {
        for (const m of [method, method === 'GET' ? 'DELETE' : 'GET']) {
          for (const query of queries) {
            for (const body of m === 'GET' || m === 'DELETE' ? [undefined] : bodies) {
              for (const [credential, contentType] of [['caller', contentTypes[0]], ['none', contentTypes[0]], ['throws', contentTypes[0]], ['caller', contentTypes[1]], ['caller', contentTypes[2]]] as const) {
                const req = () => ({
                  method: m,
                  path: path.replace(/\{[^}]+\}/g, value),
                  query: structuredClone(query) as any,
                  headers: { authorization: 'Bearer k', ...(contentType ? { 'content-type': contentType } : {}) },
                  body: structuredClone(body),
                });
                auth = credential;
                log.length = 0;
                const expected = await api.handleRequest(req());
                const expectedLog = log.join();
                log.length = 0;
                const actual = await dispatch(req());
                const context = `${m} ${path} ${value} ${JSON.stringify(query)} ${JSON.stringify(body)} ${credential} ${contentType}`;
                expect(JSON.parse(JSON.stringify(actual)), context).to.deep.equal(JSON.parse(JSON.stringify(expected)));
                expect(log.join(), context).to.equal(expectedLog);
                kinds.add((expected as { kind: string }).kind);
                compared++;
              }
            }
          }
        }
      }
    }
    for (const [m, p] of [['GET', '/nope'], ['PUT', '/jobs'], ['GET', '/jobs/J-1/nope']]) {
      const expected = await api.handleRequest({ method: m, path: p, query: {}, headers: {} });
      const actual = await dispatch({ method: m, path: p, query: {}, headers: {} });
      expect(JSON.parse(JSON.stringify(actual)), `${m} ${p}`).to.deep.equal(JSON.parse(JSON.stringify(expected)));
      kinds.add((expected as { kind: string }).kind);
    }
    expect([...kinds].sort()).to.deep.equal(['400', '401', '404', '405', 'operation']);
    expect(compared).to.be.above(5000);
  });

  it('refuses hooks it does not run', async () => {
    const other = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: true, validate: true, coerceTypes: true });
    other.register({ preOperationHandler: () => undefined });
    await other.init();
    expect(() => createDispatch(other)).to.throw(/preOperationHandler/);
  });
});
