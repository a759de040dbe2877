import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg } from './support/client';
import { eventually } from './support/webhook-receiver';
import { startBackgroundWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';
import { requestBackfill } from '../src/resources/reconciliation/backfill';
import { pruneChangeFeed } from '../src/feed/retention';
import { pruneDeprecatedUsage } from '../src/versions/usage';
import pg from 'pg';
import { runMigrations } from 'graphile-worker';
import { restOtherEndpoints } from './support/webhook-receiver';
import { itDirect } from './support/proxy';
import { captureLog } from './support/log-capture';
import { createLogger } from '../src/ops/log';

// Endpoints are created through the API, which checks targets against WEBHOOK_ALLOWED_HOSTS.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/** Why a test runs only against the in-process service: through the proxy, the service is a process of its own whose worker takes jobs too. */
const ONLY_WORKER = 'needs its worker to be the only one on the database: through the proxy the service runs its own worker, which takes the jobs too';

/** The job whose payload says refuseCompletion 'yes' cannot be deleted: its completion fails as a lost connection's would. */
const REFUSE_COMPLETION = `CREATE OR REPLACE FUNCTION test_refuse_job_completion() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN IF OLD.payload->>'refuseCompletion' = 'yes' THEN RAISE EXCEPTION 'completion refused'; END IF; RETURN OLD; END $$`;

/** A transaction of its own connection, and whether the server has a statement waiting for it. */
async function lockHolder() {
  const client = new pg.Client({ connectionString: harness().databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  const xid = (await client.query('SELECT txid_current()::text AS x')).rows[0].x as string;
  return {
    client,
    waitedFor: async () =>
      (await harness().db.raw(`SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted AND transactionid::text = ?`, [xid])).rows.length > 0,
    end: async () => {
      await client.query('COMMIT').catch(() => undefined);
      await client.end();
    },
  };
}

/**
 * A worker with a slot more than `payloads`, its log kept, and a \`webhook_deliver\` job of each
 * payload held in a slot: its endpoint's row is locked (its lease's UPDATE waits) until that job's
 * `lock` commits. Other files' endpoints rest meanwhile, so that no job of theirs takes the free
 * slot for long.
 */
async function workerWithHeldJobs(payloads: Record<string, string>[], stalledShutdownMs?: number) {
  const db = harness().db;
  const wakeOthers = await restOtherEndpoints(db);
  const org = await newOrg();
  const log = captureLog();
  const worker = await startBackgroundWorker({
    db,
    connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
    settings: { ...webhookSettings(loadConfig()), concurrency: payloads.length + 1 },
    pollInterval: 100,
    logger: createLogger('info', log.stream),
    stalledShutdownMs,
  });
  await db.raw(REFUSE_COMPLETION);
  await db.raw(`CREATE TRIGGER test_refuse_job_completion BEFORE DELETE ON graphile_worker._private_jobs
    FOR EACH ROW EXECUTE FUNCTION test_refuse_job_completion()`);
  const addJob = async (task: string, payload: Record<string, string>) =>
    String((await db.raw(`SELECT id FROM graphile_worker.add_job(?, ?::json)`, [task, JSON.stringify(payload)])).rows[0].id);
  const held: { id: string; lock: Awaited<ReturnType<typeof lockHolder>> }[] = [];
  for (const [i, payload] of payloads.entries()) {
    const url = `http://127.0.0.1:9/held-${i}`;
    const endpoint = expectStatus(await org.api.post('/webhook-endpoints', { url, types: ['vendor.updated'] }), 201).body;
    const lock = await lockHolder();
    await lock.client.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [endpoint.id]);
    held.push({ id: await addJob('webhook_deliver', { endpointId: endpoint.id, ...payload }), lock });
    await eventually(`held job ${i} waiting for its endpoint`, lock.waitedFor, 30_000);
  }
  const messages = () =>
    log
      .parsed()
      .filter((l) => l.component === 'background')
      .map((l) => String(l.msg));
  return {
    held,
    addJob,
    messages,
    /** The job was completed (its row deleted) by a runner. */
    completed: async (id: string) => (await db.raw(`SELECT 1 FROM graphile_worker._private_jobs WHERE id = ?`, [id])).rows.length === 0,
    logged: (text: string) => messages().some((m) => m.includes(text)),
    cleanUp: async () => {
      for (const { lock } of held) await lock.end();
      await db.raw(`DROP TRIGGER IF EXISTS test_refuse_job_completion ON graphile_worker._private_jobs`);
      await worker.stop();
      await db.raw(`DELETE FROM graphile_worker._private_jobs WHERE payload->>'refuseCompletion' IS NOT NULL OR id = ANY(?::bigint[])`, [
        held.map((h) => h.id),
      ]);
      await wakeOthers();
    },
  };
}

/** Background work runs as graphile-worker tasks of the one worker (src/background/worker.ts). */
describe('background tasks on graphile-worker', () => {
  it('prunes the change feed as a task of the worker (at start, then hourly by its crontab), not on a timer of its own', async () => {
    const org = await newOrg();
    for (const code of ['A', 'B', 'C']) expectStatus(await org.api.post('/vendors', { code, name: code }), 201);
    const db = harness().db;
    // The first three entries (its admin user's, A, B) are 40 days old.
    await db.raw(
      `UPDATE change_feed SET occurred_at = now() - interval '40 days' WHERE organization_id = ? AND position IN (SELECT position FROM change_feed WHERE organization_id = ? ORDER BY position LIMIT 3)`,
      [org.id, org.id],
    );
    // A stopping worker's run ends between organizations (before the first here): nothing pruned yet.
    expect(await pruneChangeFeed(db, 30, () => true)).to.equal(0);
    expect(Number((await db('change_feed').where({ organization_id: org.id }).count('* as n'))[0].n)).to.equal(4);
    const worker = await startBackgroundWorker({
      db,
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: webhookSettings(loadConfig()),
      feedRetentionDays: 30,
      pollInterval: 100,
    });
    try {
      await eventually(
        'the old entries pruned',
        async () => Number((await db('change_feed').where({ organization_id: org.id }).count('* as n'))[0].n) === 1,
        45_000,
      );
      const head = await db('feed_heads').where({ organization_id: org.id }).first('pruned_through');
      expect(Number(head.pruned_through)).to.be.greaterThan(0);
      // The hourly tick is graphile-worker's crontab: scheduled once however many instances run a worker.
      const known = await db.raw(`SELECT identifier FROM graphile_worker._private_known_crontabs WHERE identifier = 'feed_prune'`);
      expect(known.rows).to.have.length(1);
      // So is the daily pruning of deprecated usage (its task: the next test).
      const usage = await db.raw(`SELECT identifier FROM graphile_worker._private_known_crontabs WHERE identifier = 'deprecated_usage_prune'`);
      expect(usage.rows).to.have.length(1);
    } finally {
      await worker.stop();
    }
  });

  it('prunes the deprecated usage no caller lists any more (older than 30 days), keeping the rest', async () => {
    const org = await newOrg();
    const db = harness().db;
    // A credential's usage at a deprecated version on three days: 30 days ago (no longer listed), 29 days ago and today.
    const row = (age: number) => ({
      organization_id: org.id,
      day: db.raw(`current_date - ?::int`, [age]),
      credential_id: 'cl_pruned',
      version: '2026-06-01',
      operation_id: 'listOrders',
      what: 'version',
      count: 1,
      last_request_id: `request-${age}`,
      last_request_at: db.raw(`now() - make_interval(days => ?)`, [age]),
    });
    await db('deprecated_usage').insert([row(30), row(29), row(0)]);
    const ages = async () =>
      (await db.raw(`SELECT current_date - day AS age FROM deprecated_usage WHERE organization_id = ? ORDER BY 1`, [org.id])).rows.map((r: any) => r.age);
    expect(await ages()).to.deep.equal([0, 29, 30]);
    expect(expectStatus(await org.api.get('/deprecated-usage'), 200).body.map((u: any) => u.count)).to.deep.equal([2]);
    // The task's run, here rather than waited for (the worker runs it daily: its crontab, the test above).
    expect(await pruneDeprecatedUsage(db)).to.be.greaterThan(0);
    expect(await ages()).to.deep.equal([0, 29]);
    expect(expectStatus(await org.api.get('/deprecated-usage'), 200).body.map((u: any) => u.count)).to.deep.equal([2]);
  });

  itDirect(
    'survives a job whose completion fails (a lost connection): no unhandled rejection, and a new runner takes the next job',
    ONLY_WORKER,
    async function () {
      // Its waits are for events (a refused completion, a new runner), each up to 30 s on a loaded machine.
      this.timeout(120_000);
      const db = harness().db;
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      // The job marked `refuseCompletion` cannot be deleted, which is how graphile-worker completes a
      // job: its completion fails as one whose connection is terminated would.
      await db.raw(REFUSE_COMPLETION);
      const log = captureLog();
      const worker = await startBackgroundWorker({
        db,
        connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
        settings: webhookSettings(loadConfig()),
        pollInterval: 100,
        logger: createLogger('info', log.stream),
      });
      const logged = (text: string) => log.parsed().some((l) => l.component === 'background' && String(l.msg).includes(text));
      try {
        await db.raw(`CREATE TRIGGER test_refuse_job_completion BEFORE DELETE ON graphile_worker._private_jobs
        FOR EACH ROW EXECUTE FUNCTION test_refuse_job_completion()`);
        const refused = (await db.raw(`SELECT id FROM graphile_worker.add_job('webhook_sweep', json_build_object('refuseCompletion', 'yes'))`)).rows[0].id;
        // The refused job ran (it is locked or was attempted) and its completion failed.
        await eventually(
          'the refused job attempted',
          async () => (await db.raw(`SELECT attempts FROM graphile_worker._private_jobs WHERE id = ?`, [refused])).rows[0]?.attempts >= 1,
          30_000,
        );
        // ... and the runner that failed it was replaced. A job added before could be taken by the
        // failing runner and completed in the same refused batch (its row then stays locked by a
        // runner that is gone: seen on a loaded machine), which is not what this test is about.
        await eventually('the runner replaced', () => logged('worker started again'), 30_000);
        const next = (await db.raw(`SELECT id FROM graphile_worker.add_job('webhook_sweep', json_build_object('refuseCompletion', 'no'))`)).rows[0].id;
        await eventually(
          'the next job completed by a runner',
          async () => (await db.raw(`SELECT 1 FROM graphile_worker._private_jobs WHERE id = ?`, [next])).rows.length === 0,
          30_000,
        );
        expect(unhandled, 'unhandled rejections').to.deep.equal([]);
      } finally {
        await db.raw(`DROP TRIGGER IF EXISTS test_refuse_job_completion ON graphile_worker._private_jobs`);
        await db.raw(`DELETE FROM graphile_worker._private_jobs WHERE payload->>'refuseCompletion' IS NOT NULL`);
        await worker.stop();
        process.off('unhandledRejection', onUnhandled);
      }
    },
  );

  itDirect(
    "a runner whose pool saw two completions fail before its shutdown ended ends, and a new one takes the next job (graphile-worker's batcher, patches/README.md batch-pending)",
    ONLY_WORKER,
    async function () {
      this.timeout(120_000);
      const w = await workerWithHeldJobs([{ refuseCompletion: 'yes' }, {}, {}]);
      const [second, third, last] = w.held;
      try {
        // The free slot runs a job whose completion fails: the pool shuts down, waiting for the held ones.
        const refused = await w.addJob('webhook_sweep', { refuseCompletion: 'yes' });
        await eventually('the first completion refused', () => w.logged(`Failed to complete jobs '${refused}'`), 30_000);
        // A held job ends; its completion fails too: a second failed batch while the pool still waits.
        await second.lock.client.query('COMMIT');
        await eventually('the second completion refused', () => w.logged(`Failed to complete jobs '${second.id}'`), 30_000);
        // Two more end and complete, one after the other; with the last, the pool's shutdown is
        // complete and the runner's end releases the batcher (0.17.3 counted each batch after the
        // second failure one lower, and waited for that count to come back to 0).
        await third.lock.client.query('COMMIT');
        await eventually('the third job completed', () => w.completed(third.id), 30_000);
        await last.lock.client.query('COMMIT');
        await eventually('the last job completed', () => w.completed(last.id), 30_000);
        // The runner ends by itself: its watch does not have to give it up (without the patch, its
        // end waited for ever, and the watch gave it up after STALLED_SHUTDOWN_MS). The next job is
        // added once it has ended, so that only a new runner can take it.
        await eventually('the runner ended by itself', () => w.logged('worker stopped by itself; starting a new one'), 30_000);
        const next = await w.addJob('webhook_sweep', { refuseCompletion: 'no' });
        await eventually('the next job completed by a new runner', () => w.completed(next), 60_000);
        expect(w.messages().filter((m) => m.includes('gave it up'))).to.deep.equal([]);
      } finally {
        await w.cleanUp();
      }
    },
  );

  itDirect(
    "a runner that has not ended some time after its pool's shutdown (STALLED_SHUTDOWN_MS) is given up, and a new one takes the next job",
    ONLY_WORKER,
    async function () {
      this.timeout(120_000);
      const w = await workerWithHeldJobs([{}], 2000);
      const [held] = w.held;
      const jobLock = await lockHolder();
      try {
        // The held job's row is locked too: once it runs, its completion (a DELETE) waits, as one
        // sent on a connection the network lost without a reset would.
        await jobLock.client.query('SELECT 1 FROM graphile_worker._private_jobs WHERE id = $1 FOR UPDATE', [held.id]);
        await held.lock.client.query('COMMIT');
        await eventually("the held job's completion waiting", jobLock.waitedFor, 30_000);
        // A failed completion shuts the pool down: every slot is idle, and the runner's end waits for that completion.
        const refused = await w.addJob('webhook_sweep', { refuseCompletion: 'yes' });
        await eventually('the completion refused', () => w.logged(`Failed to complete jobs '${refused}'`), 30_000);
        // The next job is added only once the runner is given up. Before that, a slot of its pool
        // whose look-up of a job was under way when the shutdown began (graphile-worker checks that
        // the pool is active before the look-up, not after) can still take the job and complete it:
        // then no new runner took it, and the give-up came after the test had looked.
        await eventually('the runner given up', () => w.logged("worker did not end within 2 s of its pool's shutdown; gave it up, starting a new one"), 30_000);
        await eventually('a new runner started', () => w.logged('worker started again'), 30_000);
        const next = await w.addJob('webhook_sweep', { refuseCompletion: 'no' });
        await eventually('the next job completed by the new runner', () => w.completed(next), 60_000);
        expect(await w.completed(held.id), 'the stalled completion still waits').to.equal(false);
        await jobLock.end();
        await eventually('the stalled completion done', () => w.completed(held.id), 30_000);
      } finally {
        await jobLock.end().catch(() => undefined);
        await w.cleanUp();
      }
    },
  );

  itDirect(
    "a runner whose first look-up of its task names failed (a lost connection) looks again and takes jobs (graphile-worker's task cache, patches/README.md task-lookup-retry)",
    ONLY_WORKER,
    async function () {
      const db = harness().db;
      // The workers' look-up of the task ids (an insert into _private_tasks of every task name) fails
      // once, as one whose connection is terminated would; a sequence counts across the rollback.
      await db.raw(`CREATE SEQUENCE IF NOT EXISTS test_task_lookup_refusals`);
      await db.raw(`SELECT setval('test_task_lookup_refusals', 1, false)`);
      await db.raw(`CREATE OR REPLACE FUNCTION test_refuse_task_lookup() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_query() LIKE '%_private_tasks as tasks (identifier) select unnest%' AND nextval('test_task_lookup_refusals') = 1 THEN RAISE EXCEPTION 'task look-up refused'; END IF;
        RETURN NULL;
      END $$`);
      await runMigrations({ connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl });
      await db.raw(`CREATE TRIGGER test_refuse_task_lookup BEFORE INSERT ON graphile_worker._private_tasks
      FOR EACH STATEMENT EXECUTE FUNCTION test_refuse_task_lookup()`);
      const wakeOthers = await restOtherEndpoints(db);
      let worker: Awaited<ReturnType<typeof startBackgroundWorker>> | undefined;
      try {
        worker = await startBackgroundWorker({
          db,
          connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
          settings: webhookSettings(loadConfig()),
          pollInterval: 100,
        });
        const job = String((await db.raw(`SELECT id FROM graphile_worker.add_job('webhook_sweep', '{}'::json)`)).rows[0].id);
        await eventually(
          'the job completed',
          async () => (await db.raw(`SELECT 1 FROM graphile_worker._private_jobs WHERE id = ?`, [job])).rows.length === 0,
          30_000,
        );
        const refusals = (await db.raw(`SELECT last_value, is_called FROM test_task_lookup_refusals`)).rows[0];
        expect(refusals.is_called && Number(refusals.last_value), 'look-ups made (the first refused)').to.be.at.least(2);
      } finally {
        await db.raw(`DROP TRIGGER IF EXISTS test_refuse_task_lookup ON graphile_worker._private_tasks`);
        await worker?.stop();
        await wakeOthers();
      }
    },
  );

  itDirect('a stopping worker ends a backfill between chunks: its shutdown waits for no backlog, and what is left stays owed', ONLY_WORKER, async function () {
    this.timeout(120_000);
    const org = await newOrg();
    const db = harness().db;
    // 2,001 vendors whose states are gone (written behind the feed's back): a backfill of two chunks.
    for (let from = 0; from < 2001; from += 1000) {
      const inputs = Array.from({ length: Math.min(1000, 2001 - from) }, (_, i) => ({ code: `BS-${from + i}`, name: `Backlog ${from + i}` }));
      expectStatus(await org.api.post('/vendors/batch', { inputs }), 200);
    }
    await db('feed_objects').where({ organization_id: org.id, resource: 'vendor' }).delete();
    await requestBackfill(db, org.id, ['vendor']);
    // The organization's feed head, held: the backfill's first chunk waits for it (backfill.ts lockHead).
    const locker = await lockHolder();
    await locker.client.query('SELECT 1 FROM feed_heads WHERE organization_id = $1 FOR UPDATE', [org.id]);
    const worker = await startBackgroundWorker({
      db,
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: webhookSettings(loadConfig()),
      pollInterval: 100,
    });
    let stopped: Promise<void> | undefined;
    try {
      await db.raw(`SELECT graphile_worker.add_job('reconciliation_backfill', '{}'::json)`);
      await eventually('the backfill waits for the held head', locker.waitedFor, 60_000);
      stopped = worker.stop();
      await locker.client.query('ROLLBACK');
      await stopped;
    } finally {
      await locker.end().catch(() => undefined);
      await (stopped ?? worker.stop());
    }
    // The chunk in flight committed; the second never started, and the marker is still owed.
    const states = Number((await db('feed_objects').where({ organization_id: org.id, resource: 'vendor' }).count('* as n'))[0].n);
    expect(states).to.equal(2000);
    expect(await db('feed_object_backfills').where({ organization_id: org.id, resource: 'vendor' })).to.have.length(1);
    // The reconciliation read completes what is owed before it answers.
    const res = expectStatus(await org.api.get('/reconciliation/vendor'), 200);
    expect(res.body.count).to.equal(2001);
    expect(await db('feed_object_backfills').where({ organization_id: org.id, resource: 'vendor' })).to.deep.equal([]);
  });
});
