import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Logger, run, TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Logger as ServiceLogger } from 'pino';
import { componentLog, type ComponentLog } from '../ops/log';
import type { Db } from '../db/knex';
import { deliverEndpoint } from './deliver';
import { sweepEndpoints } from '../resources/webhook-endpoints/queries';
import { Sender } from '../webhooks/send';
import type { WebhookSettings } from '../webhooks/settings';
import { deliverPending } from '../mail/mailer';
import { pruneChangeFeed } from '../feed/retention';
import { runPendingBackfills } from '../resources/reconciliation/backfill';
import { runPendingCaptures } from '../resources/reconciliation/captures';
import { RECONCILED } from '../resources';
import { superviseRunner, type SupervisedRunner } from './supervisor';
import { pruneDeprecatedUsage } from '../versions/usage';

/**
 * The service's background work, on graphile-worker jobs in our PostgreSQL: webhook deliveries
 * (and their sweep), the mail outbox, the change feed's retention and the deprecated usage's (daily). Periodic tasks are
 * graphile-worker's crontab, which schedules each tick once however many instances run a worker;
 * a task that fails is logged (component `webhooks`, `mailer`, `change-feed-retention` or `deprecated-usage`) and
 * runs again at its next tick.
 *
 * Webhooks:
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
export interface BackgroundWorker {
  /** Wakes every endpoint with undelivered entries and prunes old attempts (also run every minute). */
  sweep(): Promise<void>;
  /** Finishes the attempts in flight, then stops; nothing undelivered is lost. */
  stop(): Promise<void>;
}

export interface BackgroundWorkerOptions {
  db: Db;
  connectionString: string;
  settings: WebhookSettings;
  /** Deliver the mail outbox through this SMTP server every minute (and at start). */
  mail?: { smtpUrl: string; from?: string };
  /** Prune the change feed's entries older than this many days every hour (and at start). */
  feedRetentionDays?: number;
  /** Names this instance in leases (for logs); unique per process by default. */
  workerId?: string;
  /** How often to look for jobs when no NOTIFY arrives (ms). */
  pollInterval?: number;
  /** The service's logger (lines with `component: "webhooks"`); stderr without one. */
  logger?: ServiceLogger;
  /** Give up a runner whose end hangs this long after its pool's shutdown (ms; STALLED_SHUTDOWN_MS by default). */
  stalledShutdownMs?: number;
}

/**
 * graphile-worker's own messages: warnings and errors only (job failures are in our delivery log).
 * Exported for test/graphile-worker-log-lines.test.ts, which runs graphile-worker with it.
 */
export const quietLogger = (log: ComponentLog) =>
  new Logger(() => (level, message) => {
    if (level === 'error') log.error(message);
    else if (level === 'warning') log.warn(message);
  });

export async function startBackgroundWorker(options: BackgroundWorkerOptions): Promise<BackgroundWorker> {
  const settings = options.settings;
  const sender = new Sender(settings.allowedHosts, settings.timeoutMs);
  let stopping = false;
  const deps = {
    db: options.db,
    sender,
    settings,
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    stopping: () => stopping,
  };
  const mailLog = componentLog('mailer', options.logger);
  const retentionLog = componentLog('change-feed-retention', options.logger);
  const usageLog = componentLog('deprecated-usage', options.logger);
  const { mail, feedRetentionDays } = options;
  // The periodic tasks end early once the worker stops (what is left waits for the next tick): a
  // backlog must not hold a shutdown past SHUTDOWN_TIMEOUT_MS.
  // Failures of mail and retention are logged as before (their next tick runs them again), not
  // thrown: graphile-worker would otherwise retry the tick's job on top of the next tick.
  const taskList: TaskList = {
    webhook_deliver: async (payload) => deliverEndpoint(deps, (payload as { endpointId: string }).endpointId),
    webhook_sweep: async () => sweepEndpoints(options.db, settings.deliveryRetentionMs),
    // Object states owed a backfill (data written without the feed: src/resources/reconciliation/backfill.ts).
    reconciliation_backfill: async () => runPendingBackfills(RECONCILED, options.db, () => stopping),
    // Changes made in the database, woken by its triggers (migration 20261206000000), and every minute.
    feed_capture: async () => runPendingCaptures(RECONCILED, options.db, () => stopping),
    // Deprecated usage older than GET /deprecated-usage lists (src/versions/usage.ts).
    deprecated_usage_prune: async () => {
      await pruneDeprecatedUsage(options.db).catch((err) => usageLog.error('pruning failed', err));
    },
    ...(mail && {
      mail_deliver: async () => {
        await deliverPending(options.db, mail.smtpUrl, { from: mail.from, stopping: () => stopping }).catch((err) => mailLog.error('delivery run failed', err));
      },
    }),
    ...(feedRetentionDays !== undefined && {
      feed_prune: async () => {
        await pruneChangeFeed(options.db, feedRetentionDays, () => stopping).catch((err) => retentionLog.error('pruning failed', err));
      },
    }),
  };
  const crontab = [
    '* * * * * webhook_sweep ?max=1',
    '* * * * * reconciliation_backfill ?max=1',
    '* * * * * feed_capture ?max=1',
    '17 3 * * * deprecated_usage_prune ?max=1',
    mail && '* * * * * mail_deliver ?max=1',
    feedRetentionDays !== undefined && '0 * * * * feed_prune ?max=1',
  ].filter(Boolean);
  // Our own pool rather than a connectionString: graphile-worker's releasers, on stop(), remove the
  // error listeners of a pool it made and then call its end() without waiting for it, so its idle
  // clients stayed connected, with no listener, past runner.stop(); when the server then closed them
  // (the embedded PostgreSQL stopped right after, or a Ctrl-C reaching it) the pool's 'error' was
  // unhandled and crashed the process. This pool logs such errors for its whole life, and stop()
  // waits until every one of its connections is closed.
  const pool = new pg.Pool({ connectionString: options.connectionString, max: settings.concurrency + 2, application_name: 'procurement-api-background' });
  const log = componentLog('background', options.logger);
  const logError = (err: Error) => log.error('database connection lost', err);
  pool.on('error', logError); // an idle client's connection ends
  pool.on('connect', (client) => client.on('error', logError)); // a checked-out one's (its query fails too)
  const runnerOptions = {
    pgPool: pool,
    concurrency: settings.concurrency,
    noHandleSignals: true,
    pollInterval: options.pollInterval ?? 2000,
    logger: quietLogger(log),
    taskList,
    crontab: crontab.join('\n'),
    // Job completions and failures go through graphile-worker's batcher (delay 0: no waiting), the
    // one path of graphile-worker 0.17.3 that catches their errors. Unbatched, worker.ts calls
    // completeJob(job)/failJob(...) without awaiting them, so a completion whose connection is lost
    // (a terminated backend, a database shutting down) is an unhandled rejection that ends the
    // whole process. Batched, such an error is logged and stops that runner's worker pool; the
    // supervisor (./supervisor.ts) starts a new runner (the job stays locked until graphile-worker
    // frees it, and the sweep makes that harmless: deliveries follow the feed, not the jobs).
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  };
  let runners: SupervisedRunner;
  try {
    // A new options object per runner: graphile-worker compiles and caches its options per object,
    // and with them one `events` emitter and the task ids it looked up; a runner started again gets
    // its own (one runner's watch stays off the next one's events, a failed look-up is not kept).
    runners = await superviseRunner(() => run({ ...runnerOptions }), log, { stalledShutdownMs: options.stalledShutdownMs });
  } catch (err) {
    await pool.end();
    throw err;
  }
  // run() installed graphile-worker's schema: from now on doorbells ring; catch up on anything
  // committed before (or while no worker was running).
  await sweepEndpoints(options.db, settings.deliveryRetentionMs);
  // Changes captured while no worker ran (or whose ring was lost) enter the feed now.
  await runners.current().addJob('feed_capture', {}, { jobKey: 'feed_capture' });
  // Mail and retention also run once at start (a job key folds the starts of several instances).
  if (mail) await runners.current().addJob('mail_deliver', {}, { jobKey: 'mail_deliver_start' });
  if (feedRetentionDays !== undefined) await runners.current().addJob('feed_prune', {}, { jobKey: 'feed_prune_start' });
  await runners.current().addJob('deprecated_usage_prune', {}, { jobKey: 'deprecated_usage_prune_start' });
  let stopped: Promise<void> | undefined;
  return {
    sweep: () => sweepEndpoints(options.db, settings.deliveryRetentionMs),
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        try {
          await runners.stop();
        } finally {
          sender.close();
          await pool.end();
        }
      })()),
  };
}
