import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Logger, run, Runner, TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Logger as ServiceLogger } from 'pino';
import { componentLog, type ComponentLog } from '../ops/log';
import type { Db } from '../db/knex';
import { ENDPOINT_WANTS, deliverEndpoint } from './deliver';
import { Sender } from '../webhooks/send';
import { webhookSettings, WebhookSettings } from '../webhooks/settings';
import { runPendingBackfills } from '../resources/reconciliation/backfill';

/**
 * The webhook delivery worker: graphile-worker jobs in our PostgreSQL.
 *
 * Why graphile-worker: its `add_job` is a SQL function, so the change's own transaction creates
 * the job (the doorbell trigger in migrations/20261124040000_webhooks.ts), with no second
 * connection and no outbox to poll; jobs are taken with SKIP LOCKED and announced by
 * LISTEN/NOTIFY (polling where NOTIFY does not reach, e.g. behind PgBouncer), and a job key folds
 * the doorbells of one endpoint into one pending job. pg-boss would need its JavaScript `send`
 * inside our transaction. What must be delivered is not the jobs but the feed itself, from each
 * endpoint's `delivered_position` (src/background/deliver.ts), so the periodic sweep below makes a
 * lost or stuck job (a crashed worker's stays locked for hours in graphile-worker) harmless.
 */
export interface WebhookWorker {
  /** Wakes every endpoint with undelivered entries and prunes old attempts (also run every minute). */
  sweep(): Promise<void>;
  /** Finishes the attempts in flight, then stops; nothing undelivered is lost. */
  stop(): Promise<void>;
}

export interface WebhookWorkerOptions {
  db: Db;
  connectionString: string;
  settings?: Partial<WebhookSettings>;
  /** Names this instance in leases (for logs); unique per process by default. */
  workerId?: string;
  /** How often to look for jobs when no NOTIFY arrives (ms). */
  pollInterval?: number;
  /** The service's logger (lines with `component: "webhooks"`); stderr without one. */
  logger?: ServiceLogger;
}

/** graphile-worker's own messages: warnings and errors only (job failures are in our delivery log). */
const quietLogger = (log: ComponentLog) =>
  new Logger(() => (level, message) => {
    if (level === 'error') log.error(message);
    else if (level === 'warning') log.warn(message);
  });

async function sweep(db: Db, settings: WebhookSettings): Promise<void> {
  await db.raw(
    `SELECT webhook_wake(e.id, greatest(e.next_attempt_at, now()), 'preserve_run_at') FROM webhook_endpoints e
      WHERE e.enabled AND (e.lease_expires_at IS NULL OR e.lease_expires_at < now())
        AND EXISTS (SELECT 1 FROM change_feed f WHERE f.organization_id = e.organization_id AND f.position > e.delivered_position
                      AND ${ENDPOINT_WANTS('e', 'f')})`,
  );
  await db.raw(`DELETE FROM webhook_deliveries WHERE attempted_at < now() - ? * interval '1 millisecond'`, [settings.deliveryRetentionMs]);
}

export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<WebhookWorker> {
  const settings = { ...webhookSettings(), ...options.settings };
  const sender = new Sender(settings.allowedHosts, settings.timeoutMs);
  let stopping = false;
  const deps = {
    db: options.db,
    sender,
    settings,
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    stopping: () => stopping,
  };
  const taskList: TaskList = {
    webhook_deliver: async (payload) => deliverEndpoint(deps, (payload as { endpointId: string }).endpointId),
    webhook_sweep: async () => sweep(options.db, settings),
    // Object states owed a backfill (data written without the feed: src/resources/reconciliation/backfill.ts).
    reconciliation_backfill: async () => runPendingBackfills(options.db),
  };
  // Our own pool rather than a connectionString: graphile-worker's releasers, on stop(), remove the
  // error listeners of a pool it made and then call its end() without waiting for it, so its idle
  // clients stayed connected, with no listener, past runner.stop(); when the server then closed them
  // (the embedded PostgreSQL stopped right after, or a Ctrl-C reaching it) the pool's 'error' was
  // unhandled and crashed the process. This pool logs such errors for its whole life, and stop()
  // waits until every one of its connections is closed.
  const pool = new pg.Pool({ connectionString: options.connectionString, max: settings.concurrency + 2, application_name: 'procurement-api-webhooks' });
  const log = componentLog('webhooks', options.logger);
  const logError = (err: Error) => log.error('database connection lost', err);
  pool.on('error', logError); // an idle client's connection ends
  pool.on('connect', (client) => client.on('error', logError)); // a checked-out one's (its query fails too)
  let runner: Runner;
  try {
    runner = await run({
      pgPool: pool,
      concurrency: settings.concurrency,
      noHandleSignals: true,
      pollInterval: options.pollInterval ?? 2000,
      logger: quietLogger(log),
      taskList,
      crontab: '* * * * * webhook_sweep ?max=1\n* * * * * reconciliation_backfill ?max=1',
    });
  } catch (err) {
    await pool.end();
    throw err;
  }
  // run() installed graphile-worker's schema: from now on doorbells ring; catch up on anything
  // committed before (or while no worker was running).
  await sweep(options.db, settings);
  let stopped: Promise<void> | undefined;
  return {
    sweep: () => sweep(options.db, settings),
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        try {
          await runner.stop();
        } finally {
          sender.close();
          await pool.end();
        }
      })()),
  };
}
