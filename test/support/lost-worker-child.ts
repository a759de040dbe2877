/**
 * graphile-worker in a process of its own (test/graphile-worker-log-lines.test.ts), logging through
 * the service's logger (JSON lines on stdout, src/ops/log.ts) and its adapter for graphile-worker
 * (src/background/worker.ts quietLogger), and printing nothing else. It makes a worker of the pool
 * exit with an error while the pool shuts down, as a worker whose connection is lost does: the
 * worker's job look-up asks its pool for a connection, the pool holds that request, the runner is
 * told to stop (the worker is released while its look-up runs), then the request fails. Every
 * step waits for graphile-worker's own events, none for time. Exits 0 once the runner has stopped.
 * Arguments: connectionString jobKey.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import pino from 'pino';
import { run, type WorkerEvents } from 'graphile-worker';
import { componentLog, createLogger } from '../../src/ops/log';
import { quietLogger } from '../../src/background/worker';

const [connectionString, jobKey] = process.argv.slice(2);
const TASK = 'lost_worker_probe';
// Synchronous: every line is written before the process exits.
const logger = createLogger('info', pino.destination({ dest: 1, sync: true }));

/** A pool whose next connection request, once armed, is held until failHeld(). */
class HoldingPool extends pg.Pool {
  private armed = false;
  private fail?: (err: Error) => void;
  private onHeld?: () => void;
  /** Settles when an armed request arrived. */
  readonly held = new Promise<void>((resolve) => (this.onHeld = resolve));

  arm(): void {
    this.armed = true;
  }

  failHeld(err: Error): void {
    this.fail!(err);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    if (callback) return super.connect(callback);
    if (!this.armed) return super.connect();
    this.armed = false;
    return new Promise<pg.PoolClient>((_resolve, reject) => {
      this.fail = reject;
      this.onHeld!();
    });
  }
}

const once = (events: WorkerEvents, name: string) => new Promise<void>((resolve) => (events as EventEmitter).once(name, () => resolve()));

async function main(): Promise<void> {
  const log = componentLog('background', logger);
  const pool = new HoldingPool({ connectionString, max: 4 });
  // As the service's pool (src/background/worker.ts): without these graphile-worker warns on the console.
  pool.on('error', (err) => log.error('database connection lost', err));
  pool.on('connect', (client) => client.on('error', (err) => log.error('database connection lost', err)));
  const events: WorkerEvents = new EventEmitter();
  const listening = once(events, 'pool:listen:success');
  const idle = once(events, 'worker:getJob:empty');
  const runner = await run({
    pgPool: pool,
    concurrency: 1,
    noHandleSignals: true,
    // Only the doorbell below makes the worker look for a job again.
    pollInterval: 3_600_000,
    logger: quietLogger(log),
    taskList: { [TASK]: async () => undefined },
    events,
  });
  // The worker's first look-up found nothing and the pool listens for new jobs: the pool's next
  // connection request is the worker's look-up for the job added now (on a connection of its own).
  await Promise.all([listening, idle]);
  pool.arm();
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query('SELECT graphile_worker.add_job($1, job_key => $2)', [TASK, jobKey]);
  await pool.held;
  const released = once(events, 'worker:release');
  const stopped = runner.stop();
  await released;
  pool.failHeld(new Error('Connection terminated unexpectedly'));
  await stopped.catch((err) => log.error('runner stop failed', err));
  await runner.promise.catch((err) => log.error('runner ended with an error', err));
  await client.query('SELECT graphile_worker.remove_job($1)', [jobKey]);
  await client.end();
  await pool.end();
}

main().then(
  () => process.exit(0),
  (err) => {
    logger.error({ err }, 'lost-worker child failed');
    process.exit(1);
  },
);
