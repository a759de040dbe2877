import { expect } from 'chai';
import { OpenAPIRouter, type Context } from 'openapi-backend';
import { newBackend } from '../../src/http/backend';
import { PreRoutedRouter } from '../../src/http/routed-once';

/**
 * src/http/routed-once.ts: the service routes a request once, and openapi-backend's handleRequest
 * takes that match (on openapi-backend's public API: a subclass of its exported router).
 */
describe('unit: a request routed once', function () {
  this.timeout(60_000);

  async function backend() {
    const api = newBackend();
    api.registerSecurityHandler('apiKey', () => true);
    api.registerSecurityHandler('oauth2', () => true);
    const seen = (c: Context) => ({ operation: c.operation, params: c.request.params, query: c.request.query });
    api.register({
      getJob: seen,
      listJobs: seen,
      notFound: () => 'notFound',
      methodNotAllowed: () => 'methodNotAllowed',
      validationFail: (c: Context) => c.validation.errors,
    });
    return api.init();
  }

  /** How often openapi-backend's own matchOperation runs during `run`. */
  async function routings(run: () => Promise<unknown>): Promise<{ routed: number; result: any }> {
    const match = OpenAPIRouter.prototype.matchOperation;
    let routed = 0;
    OpenAPIRouter.prototype.matchOperation = function (this: OpenAPIRouter, ...args: Parameters<typeof match>) {
      routed++;
      return match.apply(this, args);
    } as typeof match;
    try {
      return { result: await run(), routed };
    } finally {
      OpenAPIRouter.prototype.matchOperation = match;
    }
  }

  it('gives the router and the validator one PreRoutedRouter', async () => {
    const api = await backend();
    expect(api.router).to.be.an.instanceOf(PreRoutedRouter);
    expect(api.validator.router).to.equal(api.router);
  });

  it('handles a request handed on with its match without routing it again, parsed and coerced as before', async () => {
    const api = await backend();
    const operation = api.router.matchOperation({ method: 'GET', path: '/jobs/J-7', headers: {} }, true);
    const request = api.router.preRouted({ method: 'GET', path: '/jobs/J-7', headers: {} }, operation);
    const { routed, result } = await routings(() => api.handleRequest(request));
    expect(routed).to.equal(0);
    expect(result.operation).to.equal(operation);
    expect(result.params).to.deep.equal({ jobIdOrCode: 'J-7' });
    const list = api.router.matchOperation({ method: 'GET', path: '/jobs', headers: {} }, true);
    const listed = await api.handleRequest(api.router.preRouted({ method: 'GET', path: '/jobs', query: { limit: '5' }, headers: {} }, list));
    expect(listed.query).to.deep.include({ limit: 5 });
  });

  it('routes a request without a match as ever: 404, 405, and one handed on with none', async () => {
    const api = await backend();
    const { routed, result } = await routings(() => api.handleRequest({ method: 'GET', path: '/jobs/J-8', headers: {} }));
    expect(routed).to.equal(1);
    expect(result.params).to.deep.equal({ jobIdOrCode: 'J-8' });
    expect(await api.handleRequest(api.router.preRouted({ method: 'GET', path: '/nope', headers: {} }, undefined))).to.equal('notFound');
    expect(await api.handleRequest({ method: 'PUT', path: '/tax-codes', headers: {} })).to.equal('methodNotAllowed');
  });

  it('never gives a request the match of another handed on after it: it routes it again', async () => {
    const api = await backend();
    const job = api.router.matchOperation({ method: 'GET', path: '/jobs/J-7', headers: {} }, true);
    const list = api.router.matchOperation({ method: 'GET', path: '/jobs', headers: {} }, true);
    const first = api.router.preRouted({ method: 'GET', path: '/jobs/J-7', headers: {} }, job);
    const second = api.router.preRouted({ method: 'GET', path: '/jobs', headers: {} }, list);
    const { routed, result } = await routings(() => api.handleRequest(first));
    expect(routed).to.equal(1);
    expect(result.operation.operationId).to.equal('getJob');
    expect((await routings(() => api.handleRequest(second))).routed).to.equal(0);
  });

  it('takes the match only for the request object it was handed on with', async () => {
    const api = await backend();
    const operation = api.router.matchOperation({ method: 'GET', path: '/jobs/J-7', headers: {} }, true);
    api.router.preRouted({ method: 'GET', path: '/jobs', headers: {} }, operation);
    // Another request, equal in every field, is routed by its own path.
    expect((await api.handleRequest({ method: 'GET', path: '/jobs', headers: {} })).operation.operationId).to.equal('listJobs');
  });
});
