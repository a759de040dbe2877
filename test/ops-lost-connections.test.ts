import { expect } from 'chai';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { harness } from './support/harness';
import { Client, expectStatus, newOrg, type TestOrg } from './support/client';
import { call, startInstance, type Instance } from './support/instance';
import { makeOrder, sleep } from './support/purchasing-fixtures';
import { readAll } from './support/feed';
import { eventually as delivered, Receiver, restOtherEndpoints } from './support/webhook-receiver';
import { startBackgroundWorker, type BackgroundWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/ops/log';
import { onlyDirect } from './support/proxy';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS (read at start); the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/** The pool of an instance (tarn, through knex). */
interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}
const poolOf = (instance: Instance) => (instance.db.client as unknown as { pool: Pool }).pool;

/**
 * As an operator or a failover would: ends every session of the service on the run's database
 * (this suite's instance, and the run's own pool and LISTEN session too, which must recover alike).
 */
async function terminateBackends(): Promise<number> {
  const { rows } = await harness().db.raw(
    `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
      WHERE application_name LIKE 'procurement-api%' AND datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return rows.length;
}

/** `work`, or a failure naming `what` when it has not settled within `ms` (never a silent hang). */
async function within<T>(what: string, work: Promise<T>, ms = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not within ${ms / 1000} s: ${what}`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Polls until `check` holds (generous: the machine is loaded), failing with `what`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    await sleep(50);
  }
}

/**
 * A bulk page whose reader takes its first chunk and then stops reading, so the server holds the
 * page's cursor (and its pool connection) mid-stream; `finish()` reads the rest (or sees the cut).
 */
function stalledPage(base: string, org: TestOrg, path: string): Promise<{ finish(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers: { authorization: `Bearer ${org.apiKey}` } }, (res: IncomingMessage) => {
      res.once('data', (first: Buffer) => {
        res.pause();
        resolve({
          finish: () =>
            new Promise<string>((done) => {
              // The server may have cut the page while this reader was paused: its end (or close)
              // has then already been emitted, and would not be again.
              if (res.destroyed || res.readableEnded) return done(res.complete ? 'complete' : 'cut');
              const chunks = [first];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => done(res.complete ? 'complete' : 'cut'));
              res.on('error', () => done('cut'));
              res.on('close', () => done(res.complete ? 'complete' : 'cut'));
              res.resume();
            }),
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ops: lost database connections (terminated backends)', function () {
  this.timeout(300_000);
  let instance: Instance;
  let orgs: TestOrg[];

  before(async () => {
    orgs = [await newOrg(), await newOrg(), await newOrg(), await newOrg()];
    // Pages (about 10 MB) far larger than what the sockets buffer: a reader that stops holds the
    // page's cursor open.
    const lines = Array.from({ length: 1300 }, (_, i) => ({
      line_number: i + 1,
      description: `Line ${i + 1}: 2x4 stud, 8 ft, kiln-dried fir ${'x'.repeat(8000)}`,
    }));
    for (const org of [orgs[0], orgs[1], orgs[3]]) await makeOrder(org, {}, lines);
    // Production mode: bulk pages stream (test mode validates them whole first). A pool of 4,
    // acquire timeout 1.5 s (test/support/instance.ts).
    instance = await startInstance({ config: { mode: 'production' } });
  });
  after(async () => instance?.close());

  const clientOf = (org: TestOrg) => ({
    get: (path: string) => call(instance.baseUrl, 'GET', path, { token: org.apiKey, timeoutMs: 30_000 }),
    post: (path: string, body: unknown) => call(instance.baseUrl, 'POST', path, { token: org.apiKey, body, timeoutMs: 30_000 }),
  });

  /** Every slot of the pool free, and every organization answered, reading and writing. */
  async function expectRecovered(round: number): Promise<void> {
    await eventually('every pool connection given back', () => poolOf(instance).numUsed() === 0 && poolOf(instance).numPendingAcquires() === 0);
    for (const org of orgs) {
      await eventually(`organization ${org.name} answered`, async () => (await clientOf(org).get('/items?limit=10')).status === 200);
      const created = await clientOf(org).post('/tax-codes', { code: `AFTER-${round}`, description: 'After the cut', taxPercent: 0.01 });
      expect(created.status, created.text).to.equal(201);
    }
    // The run's own instance (the harness) recovers too.
    await eventually('the run instance answers', async () => (await orgs[2].api.get('/tax-codes')).status === 200);
  }

  it('streamed pages cut by terminated backends give their connections back, every tenant is served again', async () => {
    for (let round = 0; round < 3; round++) {
      // Every connection of the pool held by a stalled page: the first organization alone takes its
      // share (2), then two more one each (with three busy, the share is 1; src/http/fair-share.ts).
      const stalled = (of: number[]) => Promise.all(of.map((i) => stalledPage(instance.baseUrl, orgs[i], '/items?limit=2500')));
      const first = await within('the first pages started', stalled([0, 0]));
      await eventually('the first organization holds its share', () => poolOf(instance).numUsed() === 2, 10_000);
      const pages = [...first, ...(await within('the pages started', stalled([1, 3])))];
      let outcomes: string[];
      try {
        await eventually('the stalled pages hold the whole pool', () => poolOf(instance).numUsed() === 4, 10_000);
        expect(await within('the backends terminated', terminateBackends())).to.be.at.least(4);
      } finally {
        outcomes = await within('the cut pages ended', Promise.all(pages.map((p) => p.finish())));
      }
      // A page cut mid-way is cut, never a complete-looking document.
      for (const outcome of outcomes) expect(outcome).to.be.oneOf(['cut', 'complete']);
      await expectRecovered(round);
    }
  });

  it('batches and streams cut repeatedly lose nothing that was answered, and every change is in the feed', async () => {
    const org = orgs[2];
    const answered: string[] = [];
    for (let round = 0; round < 3; round++) {
      const batches = [0, 1, 2].map((b) => {
        const inputs = Array.from({ length: 200 }, (_, i) => ({ code: `LOST-${round}-${b}-${i}`, name: `Lost connection job ${round}.${b}.${i}` }));
        return clientOf(org)
          .post('/jobs/batch', { inputs })
          .then((res) => {
            if (res.status === 200) answered.push(...inputs.map((x) => x.code));
            else expect(res.status, res.text).to.equal(503);
          });
      });
      const pages = await within('the pages started', Promise.all([0, 1].map((i) => stalledPage(instance.baseUrl, orgs[i], '/items?limit=2500'))));
      // Some of the batches' statements under way (or done) when their sessions end.
      await sleep(20 * round);
      await terminateBackends();
      await within('the batches and pages ended', Promise.all([...batches, ...pages.map((p) => p.finish())]));
      await expectRecovered(10 + round);
    }
    // Every batch answered 200 is stored, and every stored job (answered or not) is in the feed once.
    const api = new Client(org.apiKey);
    const stored = new Set<string>();
    for (let offset = 0; ; offset += 100) {
      const page = expectStatus(await api.get(`/jobs?limit=100&offset=${offset}&filter[code_starts_with]=LOST-`), 200).body;
      const jobs = page;
      for (const job of jobs) stored.add(job.code);
      if (jobs.length < 100) break;
    }
    for (const code of answered) expect(stored.has(code), `${code} answered 200 and stored`).to.equal(true);
    const { entries } = await readAll(api, undefined, '&resource=job');
    const fed = entries.filter((e) => e.type === 'job.created').map((e) => e.data.code as string);
    expect(new Set(fed).size).to.equal(fed.length);
    expect([...stored].sort()).to.deep.equal(fed.filter((c) => c.startsWith('LOST-')).sort());
  });

  it('webhook deliveries cut by terminated backends: the worker recovers and every entry reaches its endpoint', async function () {
    onlyDirect(this, 'runs a delivery worker and a webhook receiver in the test process, on the database of the in-process service');
    const org = orgs[2];
    const receiver = await new Receiver().start();
    let worker: BackgroundWorker | undefined;
    const workerLog: string[] = [];
    // This worker serves every endpoint of the database: the others rest while it runs.
    const wakeOthers = await restOtherEndpoints(harness().db, org.id);
    try {
      const endpoint = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/lost'), types: ['tax_code.created'] }), 201).body;
      receiver.secrets.set('/lost', [endpoint.secret]);
      worker = await startBackgroundWorker({
        db: harness().db,
        // As the service runs it: the worker on a session connection (DATABASE_DIRECT_URL behind a pooler).
        connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
        settings: { ...webhookSettings(loadConfig()), allowedHosts: ['127.0.0.1'], timeoutMs: 2_000, retryBaseMs: 20, retryMaxMs: 200, concurrency: 2 },
        pollInterval: 100,
        // Its lost connections are expected here: kept, and printed only when the test fails.
        logger: createLogger('warn', { write: (line: string) => void workerLog.push(line.trimEnd()) }),
      });
      const codes: string[] = [];
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 5; i++) {
          const code = `HOOK-${round}-${i}`;
          // The run's own instance may be between a cut and its recovery: a 503 is tried again.
          await eventually(`tax code ${code} created`, async () =>
            [201, 409].includes((await org.api.post('/tax-codes', { code, description: 'Cut', taxPercent: 0.01 })).status),
          );
          codes.push(code);
        }
        // Deliveries under way (the worker's connections among them) lose their sessions.
        await terminateBackends();
      }
      // Every entry reaches the endpoint (at least once: a delivery cut before its bookkeeping is sent
      // again). A cut run retries its lease's release on fresh connections; a lease it could not
      // release lapses after the attempt timeout plus 30 s, when the next run that found it held has
      // scheduled a look (src/background/deliver.ts); the minute's sweep is the backstop.
      try {
        await delivered('every tax code delivered', () => new Set(receiver.accepted('/lost').map((r) => r.body.data.data.code)).size === codes.length, 150_000);
      } catch (err) {
        // What the worker and the endpoint were doing, for a failure seen only in a loaded full run.
        const db = harness().db;
        const state = {
          delivered: [...new Set(receiver.accepted('/lost').map((r) => r.body.data.data.code))],
          endpoint: await db('webhook_endpoints')
            .where({ id: endpoint.id })
            .first('enabled', 'delivered_position', 'lease_owner', 'lease_expires_at', 'next_attempt_at', 'head_attempts', 'last_error', 'generation'),
          head: await db('feed_heads').where({ organization_id: org.id }).first(),
          jobs: await db
            .raw(`SELECT task_identifier, key, run_at, locked_at, locked_by, attempts, last_error FROM graphile_worker.jobs ORDER BY run_at LIMIT 50`)
            .then(
              (r) => r.rows,
              (e: Error) => e.message,
            ),
          workerLog,
        };
        console.error(JSON.stringify(state, null, 2));
        throw err;
      }
      expect([...new Set(receiver.accepted('/lost').map((r) => r.body.data.data.code))].sort()).to.deep.equal([...codes].sort());
    } finally {
      await worker?.stop();
      await receiver.stop();
      await wakeOthers();
    }
  });

  it('keeps /healthz 200 while every connection waits on a lock another session holds (a wait, not a wedge)', async function () {
    // Behind a transaction pooler (scripts/pgbouncer-check.mjs sets DATABASE_DIRECT_URL) the pool's
    // sessions are PgBouncer's, not PostgreSQL's: pg_stat_activity cannot say what they run, so
    // /healthz keeps its former rule there (README, Operating it: probes).
    if (process.env.DATABASE_DIRECT_URL) this.skip();
    const key = 4242_0001;
    const holder = await harness().db.transaction();
    try {
      await holder.raw('SELECT pg_advisory_xact_lock(?)', [key]);
      // Every connection of the pool (4) runs a statement waiting for the lock.
      const waits = [0, 1, 2, 3].map(() => instance.db.raw('SELECT pg_advisory_xact_lock(?)', [key]).then(() => undefined));
      await eventually('every pool connection waits on the lock', async () => {
        const r = await harness().db.raw(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'",
        );
        return r.rows[0].n === 4 && poolOf(instance).numUsed() === 4;
      });
      // No connection could be had for the acquire timeout: the pool has been full for longer.
      const refused = await instance.db.raw('SELECT 1').then(
        () => 'served',
        (err: Error) => err.name,
      );
      expect(refused).to.equal('KnexTimeoutError');
      // Every connection is working on the database: the process recovers when the lock goes.
      const res = await call(instance.baseUrl, 'GET', '/healthz');
      expect(res.status, res.text).to.equal(200);
      await holder.commit();
      await Promise.all(waits);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    expect((await call(instance.baseUrl, 'GET', '/healthz')).status).to.equal(200);
  });

  it('turns /healthz 503 when no connection could be had past the acquire timeout while the database answers, 200 once it frees', async () => {
    expect((await call(instance.baseUrl, 'GET', '/healthz')).status).to.equal(200);
    const client = instance.db.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
    // A pool wedged as a leak would leave it: every connection taken, none given back.
    const held = await Promise.all([0, 1, 2, 3].map(() => client.acquireConnection()));
    try {
      await eventually('/healthz says the process cannot recover', async () => (await call(instance.baseUrl, 'GET', '/healthz')).status === 503);
      const res = await call(instance.baseUrl, 'GET', '/healthz');
      expect(res.body).to.include({ status: 503, type: '/problems/unavailable' });
      expect(res.body.detail).to.match(/connection pool is stuck/);
    } finally {
      for (const c of held) await client.releaseConnection(c);
    }
    expect((await call(instance.baseUrl, 'GET', '/healthz')).status).to.equal(200);
  });
});
