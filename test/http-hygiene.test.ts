import { expect } from 'chai';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { closeApp, createApp } from '../src/app';
import { listen } from '../src/http/server';
import { loadConfig } from '../src/config';
import { harness } from './support/harness';
import { anonymous, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';
import { OpenAPIRouter } from 'openapi-backend';

/** A second app on the harness's database, with settings of its own (CORS, timeouts). */
async function startApp(env: Record<string, string>): Promise<{ base: string; port: number; close(): Promise<void> }> {
  const app = await createApp({ db: harness().db, config: { ...loadConfig({ ...process.env, ...env }), mode: 'test' }, jwtSecret: harness().jwtSecret });
  const server: Server = await listen(app, 0, '127.0.0.1');
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp(app);
    },
  };
}

describe('HTTP hygiene', function () {
  this.timeout(60_000);
  let org: TestOrg;

  before(async () => {
    org = await newOrg();
  });

  itDirect(
    'sends X-Content-Type-Options: nosniff on every response, and Cache-Control: no-store on authenticated ones',
    PRISM.invalidRequest('orderBy=nope, and a request without credentials'),
    async () => {
      const ok = expectStatus(await org.api.get('/tax-codes'), 200);
      expect(ok.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(ok.headers.get('cache-control')).to.equal('no-store');
      const refused = problemOf(await org.api.get('/tax-codes?orderBy=nope'), 400);
      expect(refused).to.be.an('object');
      const bad = await org.api.get('/tax-codes?orderBy=nope');
      expect(bad.headers.get('cache-control')).to.equal('no-store');
      expect(bad.headers.get('x-content-type-options')).to.equal('nosniff');
      const unauthenticated = await anonymous().get('/tax-codes');
      expect(unauthenticated.status).to.equal(401);
      expect(unauthenticated.headers.get('x-content-type-options')).to.equal('nosniff');
    },
  );

  itDirect('serves the contract with nosniff too', PRISM.outsideContract('GET /openapi.json'), async () => {
    const res = await fetch(harness().baseUrl + '/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    await res.arrayBuffer();
  });

  it('refuses an access token without exp (401), though correctly signed', async () => {
    const client = await harness().db('oauth_clients').where({ client_id: org.clientId }).first('id');
    const token = jwt.sign({ sub: org.userId, org: org.id, cid: client.id }, harness().jwtSecret, { algorithm: 'HS256' });
    const res = await anonymous().get('/tax-codes', { headers: { Authorization: `Bearer ${token}` } });
    const p = problemOf(res, 401);
    expect(p.errors[0].message).to.match(/no expiry/);
    const withExp = jwt.sign({ sub: org.userId, org: org.id, cid: client.id }, harness().jwtSecret, { algorithm: 'HS256', expiresIn: 60 });
    expectStatus(await anonymous().get('/tax-codes', { headers: { Authorization: `Bearer ${withExp}` } }), 200);
  });

  it('answers filter keys qs would drop (__proto__, constructor, prototype, toString) with 400 like any unknown key', async () => {
    for (const [query, key] of [
      ['filter[__proto__][x]=1', '__proto__'],
      ['filter[constructor]=1', 'constructor'],
      ['filter[constructor][prototype][x]=1', 'constructor'],
      ['filter[prototype]=1', 'prototype'],
      ['filter.toString=1', 'toString'],
      ['filter%5B__proto__%5D%5Bx%5D=1', '__proto__'],
    ]) {
      const p = problemOf(await org.api.get(`/tax-codes?${query}`), 400);
      const item = p.errors.find((e) => e.field === `query.filter.${key}`);
      expect(item, query).to.not.equal(undefined);
      expect(item!.message).to.equal(`query.filter.${key}: unknown filter field or operator ${key}`);
    }
    const top = problemOf(await org.api.get('/tax-codes?__proto__[a]=1'), 400);
    expect(top.errors[0].field).to.equal('query.__proto__');
  });

  itDirect(
    'names the parameter, the rejected value and the allowed values when an enum rejects a value',
    PRISM.invalidRequest('orderBy=taxPercent'),
    async () => {
      const p = problemOf(await org.api.get('/tax-codes?orderBy=taxPercent'), 400);
      const item = p.errors.find((e) => e.field === 'query.orderBy')!;
      expect(item.message).to.match(/^query\.orderBy: must be one of code, .*\(got "taxPercent"\)$/);
    },
  );

  describe('NUL bytes', () => {
    itDirect(
      'are a 400 naming the field in a path, a query and a JSON body, never a database error',
      PRISM.malformedPath('a NUL byte in the path'),
      async () => {
        const inPath = problemOf(await org.api.get('/jobs/J%00-1'), 400);
        expect(inPath.errors[0].field).to.equal('path');
        const inFilter = problemOf(await org.api.get('/tax-codes?filter[code]=TX%00CA'), 400);
        expect(inFilter.errors.map((e) => e.field)).to.deep.equal(['query.filter.code']);
        const inList = problemOf(await org.api.get('/tax-codes?filter[code_in][]=A&filter[code_in][]=B%00'), 400);
        expect(inList.errors.map((e) => e.field)).to.deep.equal(['query.filter.code_in[1]']);
        const inBody = problemOf(await org.api.post('/tax-codes', { code: 'TX\u0000CA', description: 'ok', taxPercent: 0.05 }), 400);
        expect(inBody.errors.map((e) => e.field)).to.deep.equal(['body.code']);
        expect(inBody.errors[0].message).to.equal('body.code: must not contain a NUL byte (\\u0000)');
        const nested = problemOf(
          await org.api.post('/jobs/batch', {
            inputs: [
              { code: 'J-1', name: 'ok' },
              { code: 'J-2', name: 'x\u0000' },
            ],
          }),
          400,
        );
        expect(nested.errors.map((e) => e.field)).to.deep.equal(['body.inputs[1].name']);
        // At most 20 are named: the first ones, in document order.
        const many = problemOf(
          await org.api.post('/jobs/batch', { inputs: Array.from({ length: 50 }, (_, i) => ({ code: `J-${i}`, name: 'x\u0000', groupIds: [] })) }),
          400,
        );
        expect(many.errors.map((e) => e.field)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `body.inputs[${i}].name`));
        const inKey = problemOf(await org.api.unchecked.post('/tax-codes', { code: 'TX-1', description: 'ok', taxPercent: 0.05, ['a\u0000']: 1 }), 400);
        expect(inKey.errors[0].field).to.equal('body.a\\u0000');
        // Nothing was written.
        expect((await harness().db('tax_codes').where({ organization_id: org.id }).count('* as n'))[0].n).to.equal(0);
      },
    );

    itDirect(
      'nested beyond 64 levels, a body is a 400, not a stack overflow',
      'sends JSON nested beyond 64 levels: Prism validates the body itself and its process does not survive it, so it cannot go through Prism',
      async () => {
        const deep = '['.repeat(5000) + '"x"' + ']'.repeat(5000);
        const raw = `{"code":"TX-D","description":"deep","taxPercent":0.05,"extra":${deep}}`;
        const p = problemOf(await org.api.unchecked.post('/tax-codes', undefined, { raw, contentType: 'application/json' }), 400);
        expect(p.errors.map((e) => e.rule)).to.include('maxDepth');
      },
    );
  });

  describe('with settings of its own (CORS_ORIGINS, HTTP_REQUEST_TIMEOUT_MS)', () => {
    let app: Awaited<ReturnType<typeof startApp>> | undefined;
    before(async function () {
      if (!harness().inProcess) return this.skip();
      // One app for these tests: building one compiles every validator, which takes a while.
      app = await startApp({ CORS_ORIGINS: 'https://erp.example, https://admin.example', HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '800' });
    });
    after(async () => {
      await app?.close();
    });

    itDirect('is off by default: a preflight gets no Access-Control-Allow-Origin', PRISM.outsideContract('OPTIONS /tax-codes'), async () => {
      const res = await fetch(harness().baseUrl + '/tax-codes', {
        method: 'OPTIONS',
        headers: { Origin: 'https://erp.example', 'Access-Control-Request-Method': 'GET' },
      });
      await res.arrayBuffer();
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
    });

    itDirect(
      "with CORS_ORIGINS, answers those origins' preflights and exposes the rate-limit headers",
      PRISM.outsideContract('OPTIONS /tax-codes'),
      async function () {
        const { base } = app!;
        {
          const preflight = await fetch(base + '/tax-codes', {
            method: 'OPTIONS',
            headers: {
              Origin: 'https://erp.example',
              'Access-Control-Request-Method': 'POST',
              'Access-Control-Request-Headers': 'authorization, content-type',
            },
          });
          await preflight.arrayBuffer();
          expect(preflight.status).to.equal(204);
          expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://erp.example');
          expect(preflight.headers.get('access-control-allow-headers')).to.match(/Authorization/);
          const get = await fetch(base + '/tax-codes', { headers: { Origin: 'https://admin.example', Authorization: `Bearer ${org.apiKey}` } });
          await get.arrayBuffer();
          expect(get.status).to.equal(200);
          expect(get.headers.get('access-control-allow-origin')).to.equal('https://admin.example');
          expect(get.headers.get('access-control-expose-headers')).to.match(/RateLimit-Policy/);
          const other = await fetch(base + '/tax-codes', {
            method: 'OPTIONS',
            headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
          });
          await other.arrayBuffer();
          expect(other.headers.get('access-control-allow-origin')).to.equal(null);
        }
      },
    );

    itDirect(
      'answers 408 and closes the connection of a client that sends its body too slowly (HTTP_REQUEST_TIMEOUT_MS)',
      PRISM.outsideContract('a raw socket'),
      async function () {
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(app!.port, '127.0.0.1');
          let received = '';
          socket.on('data', (d) => (received += d.toString()));
          socket.on('error', reject);
          socket.on('close', () => resolve(received));
          socket.write(
            `POST /tax-codes HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${org.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"code":`,
          );
          // A byte now and then, never the whole body: without the timeout this would go on for ever.
          const drip = setInterval(() => socket.writable && socket.write(' '), 200);
          socket.on('close', () => clearInterval(drip));
        });
        expect(answer).to.match(/^HTTP\/1\.1 408 /);
      },
    );
  });

  it('matches each request to its operation once: handleRequest is handed the match made before authentication', async () => {
    const app = await startApp({});
    const router = OpenAPIRouter.prototype;
    const match = router.matchOperation;
    let routed = 0;
    router.matchOperation = function (this: OpenAPIRouter, ...args: Parameters<typeof match>) {
      routed++;
      return match.apply(this, args);
    } as typeof match;
    try {
      const res = await fetch(`${app.base}/jobs/J-NONE`, { headers: { authorization: `Bearer ${org.apiKey}` } });
      expect(res.status).to.equal(404);
      expect((await res.json()).title).to.equal('Not found');
      // routeRequest (src/http/backend.ts) matched it; openapi-backend's handleRequest did not again.
      expect(routed).to.equal(1);
    } finally {
      router.matchOperation = match;
      await app.close();
    }
  });
});
