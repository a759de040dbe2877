import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import type { Db } from '../src/db/knex';
import { startProductionApp, type ProductionApp } from './support/production-app';
import { rotateApiKey } from '../src/admin/provision';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { makeOrder } from './support/purchasing-fixtures';
import { PART_BYTES } from '../src/db/json';
import { listJson, scoped } from '../src/db/resource';
import { jobs } from '../src/resources/jobs/queries';
import { listBulkItems } from '../src/resources/orders/item-reads';
import { listParams } from '../src/http/list-params';
import { eventually } from './support/webhook-receiver';

/**
 * Bulk pages (GET /items, GET /invoice-items, GET /releases) leave a production server part by
 * part as PostgreSQL produces them (src/db/json.ts JsonStream, src/db/stream.ts). Tests run the
 * service in test mode, which validates each page whole before sending it; this file starts a
 * production-mode app on the same database to check the streamed form: the same document, sent in
 * chunks, a revoked key still refused, and a client that goes away mid-page gives its database
 * connection back.
 */
describe('streamed bulk pages (production mode)', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let db: Db;
  let production: ProductionApp | undefined;
  let base: string;

  before(async function () {
    // The production app is started in this process, on the harness's database.
    if (!harness().inProcess) return this.skip();
    org = await newOrg();
    await makeOrder(
      org,
      {},
      Array.from({ length: 1300 }, (_, i) => ({ line_number: i + 1, description: `Line ${i + 1}: 2x4 stud, 8 ft, kiln-dried fir` })),
    );
    production = await startProductionApp();
    ({ base, db } = production);
  });

  after(async () => {
    await production?.stop();
  });

  // Uncompressed (fetch would ask for gzip): the parts as the service writes them (compression: compression.test.ts).
  const get = (path: string, key = org.apiKey) => fetch(base + path, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' } });

  it('sends a page held in parts (lists, the change feed) whole: with its Content-Length, the same document as in test mode', async () => {
    const inputs = Array.from({ length: 300 }, (_, i) => ({ code: `PARTS-${i}`, name: `Parts job ${i}: ${'x'.repeat(150)}` }));
    expectStatus(await org.api.post('/jobs/batch', { inputs }), 200);
    for (const path of ['/jobs?limit=1000', '/changes?limit=1000', '/jobs?limit=10&offset=100000'] as const) {
      const res = await get(path);
      expect(res.status, path).to.equal(200);
      const text = await res.text();
      expect(res.headers.get('transfer-encoding'), path).to.equal(null);
      expect(Number(res.headers.get('content-length')), path).to.equal(Buffer.byteLength(text));
      expect(JSON.parse(text), path).to.deep.equal(expectStatus(await org.api.get(path), 200).body);
      // More than one part (src/db/json.ts PART_BYTES), except the empty page.
      if (!path.includes('offset')) expect(text.length, path).to.be.above(2 * PART_BYTES);
    }
    // The list's statement cut the page into parts of about PART_BYTES (never one string of it all).
    const page = await listJson(db, jobs, scoped(db, jobs, org.id), listParams({ limit: 1000 }, { orderBy: 'createdAt' }));
    const parts = page.parts.filter((p) => p.length > 1);
    expect(parts.length).to.be.above(2);
    for (const part of parts) expect(part.length).to.be.below(PART_BYTES + 1000);
  });

  it('sends the same document as the validated test-mode answer, in chunks', async () => {
    for (const path of [
      '/items?limit=2500',
      '/items?limit=600&offset=100&orderBy=lineNumber&direction=ASC',
      '/items?limit=1000&cursor=start',
      '/items?limit=5&filter[lineNumber_lt]=0',
      '/releases?limit=50',
      '/invoice-items?limit=10',
    ] as const) {
      const streamed = await get(path);
      expect(streamed.status, path).to.equal(200);
      expect(streamed.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(streamed.headers.get('transfer-encoding'), path).to.equal('chunked');
      const body = await streamed.json();
      const whole = expectStatus(await org.api.get(path), 200).body;
      if (body.meta.nextCursor) expect(body.meta.nextCursor).to.be.a('string');
      expect(body, path).to.deep.equal(whole);
    }
    // HEAD answers the headers of the same page and no body.
    const head = await fetch(base + '/items?limit=2500', { method: 'HEAD', headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    const page = await (await get('/items?limit=2500')).json();
    expect(page.meta).to.deep.equal({ total: 1300, limit: 2500, offset: 0 });
    expect(page.data).to.have.length(1300);
  });

  it('gives the connection back when the client goes away mid-page', async () => {
    for (let i = 0; i < 6; i++) {
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${base}/items?limit=2500`, { headers: { authorization: `Bearer ${org.apiKey}` } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => resolve());
        req.end();
      });
    }
    // Every connection back in the pool (a leaked one never comes back), then requests served.
    await eventually('the connections given back', () => db.client.pool.numUsed() === 0);
    for (let i = 0; i < 4; i++) expect((await get('/items?limit=10')).status).to.equal(200);
  });

  it('reads a page of at most 500 objects whole (its connection back in the pool before any part is sent); a larger page streams', async () => {
    const params = (limit: number) => listParams({ limit }, { orderBy: 'createdAt', direction: 'DESC' });
    await eventually('an idle pool', () => db.client.pool.numUsed() === 0);
    // Where clients outnumber the pool, a page that held its connection while the client read it
    // held back every request waiting for one (issue 40).
    const small = await listBulkItems(db, org.id, params(500));
    const usedBeforeAnyPart = db.client.pool.numUsed();
    // Read whatever happens, so a failure here leaks no connection into the other tests.
    const page = JSON.parse(await small.text());
    expect(usedBeforeAnyPart).to.equal(0);
    expect(page.meta).to.deep.equal({ total: 1300, limit: 500, offset: 0 });
    expect(page.data).to.have.length(500);
    // Larger: one part at a time from a cursor, the connection held until the parts are read or closed
    // (a whole page of 2,500 per connection would not keep the peak RSS bound).
    const large = await listBulkItems(db, org.id, params(501));
    const usedWhileStreaming = db.client.pool.numUsed();
    await large.close();
    expect(usedWhileStreaming).to.equal(1);
    await eventually('the connection given back', () => db.client.pool.numUsed() === 0);
  });

  it('refuses a revoked key before any part is sent', async () => {
    const other = await newOrg();
    expect((await get('/items?limit=1', other.apiKey)).status).to.equal(200);
    await rotateApiKey(harness().db, other.id);
    const res = await get('/items?limit=2500', other.apiKey);
    expect(res.status).to.equal(401);
    expect((await res.json()).errors[0].message).to.equal('The API key is invalid or has been revoked.');
  });
});
