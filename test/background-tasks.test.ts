import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg } from './support/client';
import { eventually } from './support/webhook-receiver';
import { startWebhookWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';

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
});
