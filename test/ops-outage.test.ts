import { expect } from 'chai';
import { dbWarningMark, dbWarningsSince } from './support/db-warnings';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { ensureDatabase, removeStaleClusters, startEmbedded, type EmbeddedServer } from '../src/db/embedded';
import { createOrganization } from '../src/admin/provision';
import { loadConfig } from '../src/config';
import { call, startInstance, type Instance } from './support/instance';

/** DATA_DIR as the service reads it (src/config.ts). */
const DATA_DIR = loadConfig().dataDir;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A problem answer within 2 s (the fetch is aborted past that): 503, Retry-After, problem body. */
async function expectUnavailable(base: string, method: string, path: string, token?: string) {
  const res = await call(base, method, path, {
    token,
    body: method === 'POST' ? { code: `OUT-${Math.random()}`, description: 'Outage', taxPercent: 0.01 } : undefined,
    // The instance's pool gives up acquiring after 1.5 s (test/support/instance.ts): an answer well
    // within knex's default 60 s shows that bound at work, without timing a loaded machine's request.
    timeoutMs: 15_000,
  });
  expect(res.status, `${method} ${path}: ${res.text}`).to.equal(503);
  expect(res.headers.get('retry-after')).to.equal('5');
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status: 503, type: '/problems/unavailable' });
  return res.body as { detail: string };
}

describe('ops: database outages and runaway queries', function () {
  this.timeout(180_000);

  describe('PostgreSQL stopped and started again under light load', () => {
    const dir = join(DATA_DIR, `ops-outage-${process.pid}`);
    let server: EmbeddedServer;
    let port: number;
    let db: Db;
    let instance: Instance;
    let apiKey: string;
    let url: string;

    before(async () => {
      removeStaleClusters(DATA_DIR, 'ops-outage');
      server = await startEmbedded(dir);
      port = Number(new URL(server.adminUrl).port);
      url = await ensureDatabase(server.adminUrl, 'outage');
      db = createDb(url, 2);
      await migrateLatest(db);
      apiKey = (await createOrganization(db, { name: 'Outage Builders', adminEmail: 'ops@outage.example' })).apiKey;
      instance = await startInstance({ databaseUrl: url });
    });
    after(async () => {
      await instance?.close();
      await db?.destroy();
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    // On this cluster, not the run's database: DATABASE_URL may point at PgBouncer, which does not
    // forward statement_timeout (README "Behind PgBouncer": set it on the role there).
    it('DB_STATEMENT_TIMEOUT_MS turns a statement that runs past the timeout into a 503 problem', async () => {
      const quick = await startInstance({ databaseUrl: url, config: { statementTimeoutMs: 300 } });
      // A runaway query, for sure: the read waits on a lock this test holds until the answer came.
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        expect((await call(quick.baseUrl, 'GET', '/tax-codes', { token: apiKey })).status).to.equal(200);
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE tax_codes IN ACCESS EXCLUSIVE MODE');
        const res = await call(quick.baseUrl, 'GET', '/tax-codes', { token: apiKey });
        expect(res.status, res.text).to.equal(503);
        expect(res.headers.get('retry-after')).to.equal('5');
        expect(res.body.detail).to.match(/took too long in the database/);
        await locker.query('ROLLBACK');
        expect((await call(quick.baseUrl, 'GET', '/tax-codes', { token: apiKey })).status).to.equal(200);
      } finally {
        await locker.end();
        await quick.close();
      }
    });

    it('answers 503 while the database refuses connections (ALLOW_CONNECTIONS false), and recovers by itself', async () => {
      expect((await call(instance.baseUrl, 'GET', '/tax-codes', { token: apiKey })).status).to.equal(200);
      const admin = new pg.Client({ connectionString: server.adminUrl });
      await admin.connect();
      try {
        // As an operator closing a database for maintenance: no new sessions, the open ones ended.
        const mark = dbWarningMark();
        await admin.query('ALTER DATABASE outage WITH ALLOW_CONNECTIONS false');
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'outage'`);
        for (let round = 0; round < 2; round++) {
          const [read] = await Promise.all([
            expectUnavailable(instance.baseUrl, 'GET', '/tax-codes', apiKey),
            expectUnavailable(instance.baseUrl, 'POST', '/tax-codes', apiKey),
          ]);
          expect(read.detail).to.match(/database is unavailable/);
        }
        // knex's own account of it, kept by the test support (not printed): the refused connections.
        expect(dbWarningsSince(mark).join('\n')).to.match(/not currently accepting connections|terminating connection/);
      } finally {
        await admin.query('ALTER DATABASE outage WITH ALLOW_CONNECTIONS true');
        await admin.end();
      }
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await call(instance.baseUrl, 'GET', '/tax-codes', { token: apiKey })).status;
        if (status !== 200) await sleep(100);
      }
      expect(status, 'answers again without a restart').to.equal(200);
    });

    it('answers 503 with Retry-After while it is down (its pool gives up acquiring, no hang), /readyz says why, and recovers by itself', async () => {
      expect((await call(instance.baseUrl, 'GET', '/tax-codes', { token: apiKey })).status).to.equal(200);
      expect((await call(instance.baseUrl, 'GET', '/readyz')).status).to.equal(200);

      const mark = dbWarningMark();
      await server.stop();
      // Light load: a few rounds of reads, writes and probes, three at a time.
      for (let round = 0; round < 4; round++) {
        const [read, , probe] = await Promise.all([
          expectUnavailable(instance.baseUrl, 'GET', '/tax-codes', apiKey),
          expectUnavailable(instance.baseUrl, 'POST', '/tax-codes', apiKey),
          expectUnavailable(instance.baseUrl, 'GET', '/readyz'),
        ]);
        expect(read.detail).to.match(/database is unavailable/);
        expect(probe.detail).to.match(/^The database is unreachable: /);
      }
      expect((await call(instance.baseUrl, 'GET', '/healthz')).status).to.equal(200);
      // knex's own account of it, kept by the test support (not printed): connections lost and refused.
      expect(dbWarningsSince(mark).join('\n')).to.match(/ECONNREFUSED|Connection ended unexpectedly|terminating connection/);

      server = await startEmbedded(dir, port);
      let ready = false;
      for (let i = 0; i < 200 && !ready; i++) {
        ready = (await call(instance.baseUrl, 'GET', '/readyz')).status === 200;
        if (!ready) await sleep(100);
      }
      expect(ready, 'ready again without a restart').to.equal(true);
      expect((await call(instance.baseUrl, 'GET', '/tax-codes', { token: apiKey })).status).to.equal(200);
      const created = await call(instance.baseUrl, 'POST', '/tax-codes', {
        token: apiKey,
        body: { code: 'AFTER', description: 'After the outage', taxPercent: 0.02 },
      });
      expect(created.status, created.text).to.equal(201);
    });
  });
});
