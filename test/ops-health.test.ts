import { expect } from 'chai';
import { harness } from './support/harness';
import { anonymous, expectStatus, problemOf } from './support/client';
import { call, startInstance, type Instance } from './support/instance';
import { notReadyReason } from '../src/resources/health/handlers';
import { Lifecycle } from '../src/ops/lifecycle';
import { onlyDirect } from './support/proxy';
import { rawCall } from './support/raw-http';
import { readdirSync } from 'node:fs';
import { MIGRATIONS_DIR } from '../src/db/knex';

describe('ops: health and readiness probes', () => {
  it('GET /healthz answers 200 without credentials', async () => {
    const res = expectStatus(await anonymous().get('/healthz'), 200);
    expect(res.body).to.deep.equal({ status: 'ok' });
    expect(res.headers.get('x-request-id')).to.be.a('string');
  });

  it('GET /readyz answers 200 when the database answers and every migration is applied', async () => {
    expect(expectStatus(await anonymous().get('/readyz'), 200).body).to.deep.equal({ status: 'ready' });
  });

  it('the probes answer 200 whatever conditional headers they carry (no 304: nothing to cache)', async () => {
    // Sent as they are (fetch would add Cache-Control: no-cache, under which no 304 is ever answered).
    const conditions = [
      ['If-None-Match', '*'],
      ['If-Modified-Since', new Date(Date.now() + 86_400_000).toUTCString()],
    ];
    for (const path of ['/healthz', '/readyz']) {
      for (const headers of conditions) {
        const res = await rawCall('GET', path, headers);
        expect(res.status, `${path} with ${headers[0]}`).to.equal(200);
        expect(res.body).to.have.property('status');
        expect(res.headers['cache-control']).to.equal('no-store');
      }
    }
  });

  it('the probes refuse a query parameter with 400, like every operation', async function () {
    onlyDirect(this, 'Prism refuses an unknown query parameter itself');
    const p = problemOf(await anonymous().get('/healthz?verbose=1'), 400);
    expect(p.errors[0]).to.include({ field: 'query.verbose', rule: 'additionalProperties' });
    problemOf(await anonymous().get('/readyz?verbose=1'), 400);
  });

  it('reports pending migrations by name count, and a shutdown, as reasons not to be ready', async () => {
    const known = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.js'));
    expect(await notReadyReason(harness().db, new Lifecycle(), known)).to.equal(undefined);
    expect(await notReadyReason(harness().db, new Lifecycle(), [...known, '29991231000000_future.js'])).to.equal(
      `Migrations are pending: ${known.length} of ${known.length + 1} applied.`,
    );
    const stopping = new Lifecycle();
    stopping.beginShutdown();
    expect(await notReadyReason(harness().db, stopping, known)).to.equal('The instance is shutting down.');
  });

  describe('an instance that begins shutting down', () => {
    let instance: Instance;
    before(async function () {
      this.timeout(120_000);
      instance = await startInstance();
    });
    after(async () => instance?.close());

    it('turns /readyz 503 with Retry-After and a problem body at once, /healthz stays 200', async () => {
      expect((await call(instance.baseUrl, 'GET', '/readyz')).status).to.equal(200);
      instance.lifecycle.beginShutdown();
      const res = await call(instance.baseUrl, 'GET', '/readyz');
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ status: 503, detail: 'The instance is shutting down.' });
      expect((await call(instance.baseUrl, 'GET', '/healthz')).status).to.equal(200);
    });
  });
});
