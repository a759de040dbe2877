import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg } from './support/client';
import { eventually } from './support/webhook-receiver';
import { startWebhookWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';
import { requestBackfill } from '../src/resources/reconciliation/backfill';
import { pruneChangeFeed } from '../src/feed/retention';
import pg from 'pg';

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
    const worker = await startWebhookWorker({
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
    } finally {
      await worker.stop();
    }
  });

  it('survives a job whose completion fails (a lost connection): no unhandled rejection, and a new runner takes the next job', async () => {
    const db = harness().db;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    // The job marked `refuseCompletion` cannot be deleted, which is how graphile-worker completes a
    // job: its completion fails as one whose connection is terminated would.
    await db.raw(`CREATE OR REPLACE FUNCTION test_refuse_job_completion() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF OLD.payload->>'refuseCompletion' = 'yes' THEN RAISE EXCEPTION 'completion refused'; END IF; RETURN OLD; END $$`);
    const worker = await startWebhookWorker({
      db,
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: webhookSettings(loadConfig()),
      pollInterval: 100,
    });
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
  });

  it('a stopping worker ends a backfill between chunks: its shutdown waits for no backlog, and what is left stays owed', async function () {
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
    const locker = new pg.Client({ connectionString: harness().databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    const xid = (await locker.query('SELECT txid_current()::text AS x')).rows[0].x;
    await locker.query('SELECT 1 FROM feed_heads WHERE organization_id = $1 FOR UPDATE', [org.id]);
    const worker = await startWebhookWorker({
      db,
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: webhookSettings(loadConfig()),
      pollInterval: 100,
    });
    let stopped: Promise<void> | undefined;
    try {
      await db.raw(`SELECT graphile_worker.add_job('reconciliation_backfill', '{}'::json)`);
      await eventually(
        'the backfill waits for the held head',
        async () =>
          (await db.raw(`SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted AND transactionid::text = ?`, [xid])).rows.length > 0,
        60_000,
      );
      stopped = worker.stop();
      await locker.query('ROLLBACK');
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
