import { expect } from 'chai';
import OpenAPIBackend, { MalformedPathError } from 'openapi-backend';
import { contractOperations, fillTemplate, loadContract } from '../../src/http/contract';
import { newBackend } from '../../src/http/backend';

/**
 * What patches/openapi-backend+5.21.2.patch changes, checked on openapi-backend itself: routing
 * with routes compiled once (same answers), one parse per handled request, and a malformed path
 * value as a MalformedPathError naming the parameter.
 */
describe('unit: openapi-backend as patched', function () {
  this.timeout(60_000);
  const api = new OpenAPIBackend({ definition: structuredClone(loadContract()) as any, quick: true, validate: true, coerceTypes: true });
  before(() => api.init());

  const outcome = (method: string, path: string) => {
    try {
      return api.router.matchOperation({ method, path, headers: {} }, true)?.operationId;
    } catch (err) {
      return (err as Error).message.slice(0, 3);
    }
  };

  it('routes every operation of the contract to itself, and answers 404 and 405', () => {
    for (const { method, path, operationId } of contractOperations()) {
      // Concrete values that collide with literal segments of other routes are not used here.
      const concrete = fillTemplate(path, () => 'X-1042');
      expect(outcome(method, concrete), `${method} ${concrete}`).to.equal(operationId);
      expect(outcome(method, concrete + '/'), `${method} ${concrete}/`).to.equal(operationId);
    }
    expect(outcome('GET', '/nope')).to.equal('404');
    expect(outcome('GET', '/jobs/J-1/nope')).to.equal('404');
    expect(outcome('PUT', '/tax-codes')).to.equal('405');
    // An exact path wins over a template that also matches it.
    expect(outcome('POST', '/jobs/batch')).to.equal('upsertJobs');
  });

  it('returns the same operation list on every call (built once)', () => {
    expect(api.router.getOperations()).to.equal(api.router.getOperations());
  });

  it('routes in microseconds', () => {
    const n = 5000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) api.router.matchOperation({ method: 'GET', path: '/jobs/J-1042', headers: {} }, true);
    expect(Number(process.hrtime.bigint() - start) / n / 1000).to.be.below(100);
  });

  it('parses a handled request once, and hands the handler the coerced query', async () => {
    // The service's configuration (our ajv: coercion of a single value to an array).
    const other = newBackend();
    other.registerSecurityHandler('apiKey', () => true);
    other.registerSecurityHandler('oauth2', () => true);
    other.register({ listJobs: (c) => c.request.query, notFound: () => 'nf', methodNotAllowed: () => 'mna', validationFail: (c) => c.validation.errors });
    await other.init();
    let parses = 0;
    const parse = other.router.parseRequest.bind(other.router);
    other.router.parseRequest = (...args) => (parses++, parse(...args));
    const query = await other.handleRequest({ method: 'GET', path: '/jobs', query: { limit: '5', filter: { code_in: 'J-1' } } as any, headers: {} });
    expect(query).to.deep.include({ limit: 5 });
    expect(query.filter).to.deep.equal({ code_in: ['J-1'] });
    expect(parses).to.equal(1);
  });

  it('does not route again a request handed the operation it was matched to (req.operation)', async () => {
    const other = newBackend();
    other.registerSecurityHandler('apiKey', () => true);
    other.registerSecurityHandler('oauth2', () => true);
    other.register({
      getJob: (c) => [c.operation.operationId, c.request.params],
      notFound: () => 'nf',
      methodNotAllowed: () => 'mna',
      validationFail: (c) => c.validation.errors,
    });
    await other.init();
    let routed = 0;
    const match = other.router.matchOperation.bind(other.router);
    other.router.matchOperation = ((...args: Parameters<typeof match>) => (routed++, match(...args))) as typeof other.router.matchOperation;
    const operation = match({ method: 'GET', path: '/jobs/J-7', headers: {} }, true);
    expect(await other.handleRequest({ method: 'GET', path: '/jobs/J-7', headers: {}, operation })).to.deep.equal(['getJob', { idOrCode: 'J-7' }]);
    expect(routed).to.equal(0);
    // Without a match handed in, it routes as before.
    expect(await other.handleRequest({ method: 'GET', path: '/jobs/J-8', headers: {} })).to.deep.equal(['getJob', { idOrCode: 'J-8' }]);
    expect(routed).to.equal(1);
  });

  it('throws a MalformedPathError naming a path value that is not valid percent-encoding', () => {
    const operation = api.router.getOperations().find((op) => op.operationId === 'getJob')!;
    expect(() => api.router.parseRequest({ method: 'GET', path: '/jobs/%ZZ', headers: {} }, operation))
      .to.throw(MalformedPathError)
      .with.property('parameters')
      .that.deep.equals([{ name: 'idOrCode', value: '%ZZ' }]);
  });
});
