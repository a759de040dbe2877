import { expect } from 'chai';
import { anonymous, Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';

describe('HTTP conventions (errors, request ids, limits)', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  it('echoes a valid X-Request-Id and generates one otherwise', async () => {
    const echoed = await org.api.get('/tax-codes', { headers: { 'X-Request-Id': 'erp-sync-42.7' } });
    expect(echoed.headers.get('x-request-id')).to.equal('erp-sync-42.7');
    const generated = await org.api.get('/tax-codes', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const p = problemOf(await new Client('pk_unknown').get('/tax-codes', { headers: { 'X-Request-Id': 'trace-1' } }), 401);
    expect(p.requestId).to.equal('trace-1');
  });

  itDirect('answers an unknown path with a 404 problem', PRISM.outsideContract('GET /no-such-thing'), async () => {
    const p = problemOf(await org.api.unchecked.get('/no-such-thing'), 404);
    expect(p.errors[0].message).to.match(/No operation matches GET \/no-such-thing/);
  });

  itDirect('answers HEAD like GET, without a body', PRISM.outsideContract('HEAD (the contract lists GET only)'), async () => {
    const res = await org.api.unchecked.request('HEAD', '/tax-codes');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.text).to.equal('');
    // With the length of the body GET sends, for a list page and for one object.
    expectStatus(await org.api.post('/tax-codes', { code: 'HEAD-1', description: 'Länge', taxPercent: 0.05 }), 201);
    // Uncompressed (Accept-Encoding: identity): a compressed GET has no length known in advance.
    const identity = { headers: { 'Accept-Encoding': 'identity' } };
    for (const path of ['/tax-codes', '/tax-codes/HEAD-1'] as const) {
      const [head, got] = [await org.api.unchecked.request('HEAD', path, undefined, identity), await org.api.get(path, identity)];
      expect(head.text, path).to.equal('');
      expect(head.headers.get('content-length'), path)
        .to.equal(String(Buffer.byteLength(got.text)))
        .and.to.equal(got.headers.get('content-length'));
    }
  });

  itDirect('answers a wrong method with 405 and Allow', PRISM.outsideContract('PUT /tax-codes'), async () => {
    const res = await org.api.unchecked.put('/tax-codes', {});
    problemOf(res, 405);
    expect(res.headers.get('allow')).to.equal('GET, POST');
  });

  itDirect(
    'answers an unknown path or a wrong method 404 / 405 whatever the body, before judging its content type',
    PRISM.outsideContract('POST /oauth/token'),
    async () => {
      // A client credentials form sent to a mistyped token path (the contract's is /oauth2/token).
      const form = { raw: 'grant_type=client_credentials&client_id=x&client_secret=y', contentType: 'application/x-www-form-urlencoded' };
      expect(problemOf(await anonymous().unchecked.post('/oauth/token', undefined, form), 404).detail).to.equal('No operation matches POST /oauth/token.');
      problemOf(await org.api.unchecked.post('/no-such-path', undefined, { raw: 'x', contentType: 'text/plain' }), 404);
      expect(problemOf(await org.api.unchecked.put('/tax-codes', undefined, form), 405).detail).to.not.match(/Content-Type/);
      // A known operation still refuses a body that is not JSON.
      problemOf(await org.api.unchecked.post('/tax-codes', undefined, form), 415);
    },
  );

  itDirect('rejects malformed JSON with a 400 problem', PRISM.malformedJson, async () => {
    const p = problemOf(await org.api.unchecked.post('/tax-codes', undefined, { raw: '{"code": "X",', contentType: 'application/json' }), 400);
    expect(p.errors[0]).to.include({ field: 'body', rule: 'json' });
  });

  itDirect(
    'tells a JSON body that is neither an object nor an array what it is (400), not that it is not JSON',
    PRISM.invalidRequest('a JSON null, number, string or boolean body'),
    async () => {
      for (const [raw, kind] of [
        ['null', 'null'],
        ['5', 'a number'],
        ['"X"', 'a string'],
        [' true ', 'a boolean'],
      ]) {
        const p = problemOf(await org.api.unchecked.post('/tax-codes', undefined, { raw, contentType: 'application/json' }), 400);
        expect(p.errors[0], raw).to.deep.include({ field: 'body', rule: 'type', message: `body: must be a JSON object or array, not ${kind}` });
      }
      expect(problemOf(await org.api.unchecked.post('/jobs/batch', undefined, { raw: 'null', contentType: 'application/json' }), 400).errors[0].rule).to.equal(
        'type',
      );
    },
  );

  itDirect('rejects a non-JSON body with 415', PRISM.invalidRequest('a form-encoded body where the contract takes JSON'), async () => {
    const p = problemOf(await org.api.unchecked.post('/tax-codes', undefined, { raw: 'code=X', contentType: 'application/x-www-form-urlencoded' }), 415);
    expect(p.errors[0].field).to.equal('body');
  });

  itDirect(
    'rejects a body over the limit with 413, and accepts one that fits a 1000-element batch',
    PRISM.invalidRequest('a 6 MB description and an unknown 1 MB property'),
    async () => {
      const big = JSON.stringify({ code: 'X', description: 'x'.repeat(6 * 1024 * 1024), taxPercent: 0 });
      problemOf(await org.api.unchecked.post('/tax-codes', undefined, { raw: big, contentType: 'application/json' }), 413);
      const batchSized = JSON.stringify({ code: 'BIG', description: 'x'.repeat(800), taxPercent: 0, pad: 'y'.repeat(1_000_000) });
      // 1 MB passes the body limit and reaches validation (which rejects the unknown property).
      const p = problemOf(await org.api.unchecked.post('/tax-codes', undefined, { raw: batchSized, contentType: 'application/json' }), 400);
      expect(p.errors.map((e) => e.field)).to.include('body.pad');
    },
  );

  it('names unknown query parameters, filter fields and operators', async () => {
    const p = problemOf(await org.api.get('/tax-codes?colour=red&filter[colour]=red&filter[code_between]=A'), 400);
    expect(p.errors.map((e) => e.field)).to.include.members(['query.colour', 'query.filter.colour', 'query.filter.code_between']);
  });

  itDirect('names an orderBy value outside the list, with the allowed values', PRISM.invalidRequest('orderBy=taxPercent'), async () => {
    const p = problemOf(await org.api.get('/tax-codes?colour=red&orderBy=taxPercent'), 400);
    expect(p.errors.map((e) => e.field)).to.include.members(['query.colour', 'query.orderBy']);
    expect(p.errors.find((e) => e.field === 'query.orderBy')!.message).to.match(/must be one of code, createdAt/);
  });

  itDirect('rejects limit and offset out of range', PRISM.invalidRequest('limit and offset outside their ranges'), async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=-1', 'limit=abc', 'offset=-1', 'direction=UP']) {
      const p = problemOf(await org.api.get(`/tax-codes?${q}`), 400);
      expect(p.errors[0].field, q).to.match(/^query\./);
    }
  });

  it('rejects a bad filter value type', async () => {
    const p = problemOf(await org.api.get('/tax-codes?filter[createdAt_gt]=yesterday'), 400);
    expect(p.errors[0]).to.include({ field: 'query.filter.createdAt_gt', rule: 'format' });
  });

  itDirect('rejects a path value that is not valid percent-encoding with a 400 naming the parameter', PRISM.malformedPath('GET /jobs/%ZZ'), async () => {
    for (const raw of ['%ZZ', 'J-1%E0%A4%A']) {
      const p = problemOf(await org.api.get(`/jobs/${raw}`), 400);
      expect(p.errors[0]).to.include({ field: 'path.jobIdOrCode', rule: 'encoding' });
      expect(p.errors[0].message).to.include(raw);
    }
    // A well-formed encoded value is decoded as usual (and then not found).
    expect(problemOf(await org.api.get('/jobs/J-1%20x'), 404).errors[0].message).to.equal('No job matches J-1 x.');
  });

  itDirect('serves the contract and the docs without authentication', PRISM.outsideContract('GET /openapi.json, /openapi.yaml and /docs'), async () => {
    const json = expectStatus(await anonymous().unchecked.get('/openapi.json'), 200);
    expect(json.body.openapi).to.match(/^3\./);
    const yaml = expectStatus(await anonymous().unchecked.get('/openapi.yaml'), 200);
    expect(yaml.text).to.match(/^# GENERATED/);
    const docs = await anonymous().unchecked.get('/docs');
    expect([200, 404]).to.include(docs.status);
  });

  const browser = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

  itDirect(
    'sends a browser navigating to a docs route the docs page, and anonymous API clients a 401',
    PRISM.noBearer('requests without credentials (browser navigations to the docs page, API clients)'),
    async () => {
      const page = await anonymous().get('/tax-codes', { headers: browser });
      if (page.status === 200) expect(page.headers.get('content-type')).to.match(/^text\/html/);
      else problemOf(page, 404);
      problemOf(await anonymous().get('/tax-codes', { headers: { Accept: '*/*' } }), 401);
      problemOf(await anonymous().get('/tax-codes', { headers: { Accept: 'application/json' } }), 401);
    },
  );

  it('answers an authenticated client the API whatever it accepts', async () => {
    expectStatus(await org.api.get('/tax-codes', { headers: browser }), 200);
    expect((await org.api.get('/tax-codes', { headers: browser })).headers.get('content-type')).to.match(/^application\/json/);
  });
});
