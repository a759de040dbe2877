import { expect } from 'chai';
import OpenAPIBackend from 'openapi-backend';
import { contractOperations, fillTemplate, loadContract } from '../../src/http/contract';
import { newBackend } from '../../src/http/backend';

/**
 * What patches/openapi-backend+5.21.2.patch changes, checked on openapi-backend itself: routing
 * with routes compiled once (same answers), one parse per handled request, security handlers
 * called at once with the same outcomes. (What the patch file may hold: openapi-backend-patch-file.test.ts.)
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

  it('tests a path against the templates its first segment can match, in the order of all of them', async () => {
    const op = (operationId: string) => ({ operationId, responses: { 200: { description: 'ok' } } });
    const small = new OpenAPIBackend({
      definition: {
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: {
          '/jobs/{id}': { get: op('getJob') },
          '/{kind}/items': { get: op('listKindItems') },
          '/jobs/{id}/items': { get: op('listJobItems') },
          '/jobs.{format}': { get: op('getJobsAs') },
        },
      } as any,
      quick: true,
    });
    await small.init();
    const routed = (method: string, path: string) => {
      try {
        return small.router.matchOperation({ method, path, headers: {} }, true)?.operationId;
      } catch (err) {
        return (err as Error).message.slice(0, 3);
      }
    };
    // '/{kind}/items' has the longer literal part: it comes before '/jobs/{id}' for /jobs/items too.
    expect(routed('GET', '/jobs/items')).to.equal('listKindItems');
    expect(routed('GET', '/jobs/J-1')).to.equal('getJob');
    expect(routed('GET', '/jobs/J-1/items')).to.equal('listJobItems');
    expect(routed('GET', '/vendors/items')).to.equal('listKindItems');
    // A parameter inside the first segment: any path may match it.
    expect(routed('GET', '/jobs.csv')).to.equal('getJobsAs');
    expect(routed('POST', '/vendors/items')).to.equal('405');
    expect(routed('GET', '/vendors/V-1')).to.equal('404');
    expect(routed('GET', '/')).to.equal('404');
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

  it('hands the handler and validationFail what a parse of their own gave (validation works on copies)', async () => {
    const definition = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/things/{n}': {
          get: {
            operationId: 'getThing',
            parameters: [
              { name: 'n', in: 'path', required: true, schema: { type: 'integer' } },
              { name: 'limit', in: 'query', schema: { type: 'integer' } },
              { name: 'flag', in: 'query', schema: { type: 'boolean' } },
            ],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    };
    const other = new OpenAPIBackend({ definition: structuredClone(definition) as any, strict: true, quick: true, coerceTypes: true });
    other.register({ getThing: (c) => c.request, validationFail: (c) => ({ failed: true, request: c.request }) });
    await other.init();
    const ok = await other.handleRequest({ method: 'GET', path: '/things/5', query: { limit: '7' }, headers: {} });
    // The query coerced; the path params as parsed from the path (a parse of the coerced request gave strings).
    expect(ok.query).to.deep.equal({ limit: 7 });
    expect(ok.params).to.deep.equal({ n: '5' });
    const failed = await other.handleRequest({ method: 'GET', path: '/things/5', query: { limit: '7', flag: 'maybe' }, headers: {} });
    expect(failed.failed).to.equal(true);
    expect(failed.request.query).to.deep.equal({ limit: '7', flag: 'maybe' });
    expect(failed.request.params).to.deep.equal({ n: '5' });
  });

  describe('security handlers, called at once (awaited only when they answer with a promise)', () => {
    // One operation any of two schemes admits, and one that needs both.
    const definition = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      components: { securitySchemes: { a: { type: 'http', scheme: 'bearer' }, b: { type: 'apiKey', in: 'header', name: 'x-b' } } },
      paths: {
        '/either': { get: { operationId: 'either', security: [{ a: [] }, { b: [] }], responses: { 200: { description: 'ok' } } } },
        '/both': { get: { operationId: 'both', security: [{ a: [], b: [] }], responses: { 200: { description: 'ok' } } } },
      },
    };
    type Answer = unknown | (() => unknown);
    async function outcomeOf(path: string, a: Answer, b: Answer) {
      const api = new OpenAPIBackend({ definition: structuredClone(definition) as any, strict: true, quick: true });
      const answer = (x: Answer) => () => (typeof x === 'function' ? (x as () => unknown)() : x);
      api.registerSecurityHandler('a', answer(a));
      api.registerSecurityHandler('b', answer(b));
      const seen = (c: any) => ({ authorized: c.security.authorized, a: c.security.a, b: c.security.b });
      api.register({ either: seen, both: seen, unauthorizedHandler: (c: any) => ({ ...seen(c), refused: true }) });
      await api.init();
      return api.handleRequest({ method: 'GET', path, headers: {} });
    }
    const boom = new Error('no');

    it('takes a value answered at once, and awaits a promise', async () => {
      expect(await outcomeOf('/either', { user: 1 }, false)).to.deep.equal({ authorized: true, a: { user: 1 }, b: false });
      expect(await outcomeOf('/either', false, Promise.resolve({ user: 2 }))).to.deep.equal({ authorized: true, a: false, b: { user: 2 } });
      expect(await outcomeOf('/both', Promise.resolve(true), true)).to.deep.equal({ authorized: true, a: true, b: true });
      expect(await outcomeOf('/both', true, Promise.resolve(false))).to.deep.equal({ authorized: false, a: true, b: false, refused: true });
    });

    it('takes a throw or a rejection as a failed requirement, as before', async () => {
      const thrown = await outcomeOf(
        '/either',
        () => {
          throw boom;
        },
        false,
      );
      expect(thrown).to.deep.equal({ authorized: false, a: { error: boom }, b: false, refused: true });
      expect(await outcomeOf('/either', () => Promise.reject(boom), true)).to.deep.equal({ authorized: true, a: { error: boom }, b: true });
      // A falsy rejection reason still fails the requirement.
      const falsy = (await outcomeOf('/both', true, () => Promise.reject(null))) as { authorized: boolean; b: { error: Error } };
      expect(falsy.authorized).to.equal(false);
      expect(falsy.b.error).to.be.an('error');
    });
  });

  it('parses headers (any case) and cookies as before, an absent cookie header as no cookies', () => {
    const operation = api.router.getOperations().find((op) => op.operationId === 'listJobs')!;
    const parsed = api.router.parseRequest({ method: 'GET', path: '/jobs', headers: { 'X-Mixed-Case': 'v', cookie: 'a=1; b=two' }, query: {} }, operation);
    expect(parsed.headers).to.deep.equal({ 'x-mixed-case': 'v', cookie: 'a=1; b=two' });
    expect({ ...parsed.cookies }).to.deep.equal({ a: '1', b: 'two' });
    expect(api.router.parseRequest({ method: 'GET', path: '/jobs', headers: {}, query: {} }, operation).cookies).to.deep.equal({});
  });
});
