import type { Runner } from 'graphile-worker';
import type { ComponentLog } from '../ops/log';

/**
 * How long a runner may take to end once its worker pool has shut down (every job of it finished)
 * before it is given up. What is left then is releasing graphile-worker's completion batchers: a
 * statement or two. A runner that has not ended by then is wedged (one seen: graphile-worker
 * 0.17.3's batcher counting two failed completions wrong, patches/README.md "batch-pending"; one
 * possible: a completion hung on a connection the network lost without a reset).
 */
export const STALLED_SHUTDOWN_MS = 10_000;

/** The events after which a pool has nothing left to run (graphile-worker's public `runner.events`). */
const POOL_DONE = ['pool:gracefulShutdown:complete', 'pool:gracefulShutdown:error', 'pool:forcefulShutdown:complete', 'pool:forcefulShutdown:error'] as const;

export interface SupervisorTiming {
  /** Give up a runner whose end hangs this long after its pool's shutdown (ms). */
  stalledShutdownMs?: number;
  /** The first delay before a new runner starts (ms), doubling while starts fail, to 30 s at most. */
  restartDelayMs?: number;
}

export interface SupervisedRunner {
  /** The runner working now. */
  current(): Runner;
  /** Stops the runner working now (its jobs in flight finish), or a restart under way; no new one starts. */
  stop(): Promise<void>;
}

/**
 * Runs graphile-worker runners one after another, so that an instance never goes on serving
 * requests without background work: a runner that ends by itself (its worker pool stopped on an
 * error, such as a completion whose connection was lost) or that does not end within
 * STALLED_SHUTDOWN_MS of its pool's shutdown is replaced, with a delay growing while the database
 * refuses (1 s doubling to 30 s), until stop().
 */
export async function superviseRunner(start: () => Promise<Runner>, log: ComponentLog, timing: SupervisorTiming = {}): Promise<SupervisedRunner> {
  const stalledShutdownMs = timing.stalledShutdownMs ?? STALLED_SHUTDOWN_MS;
  const firstDelay = timing.restartDelayMs ?? 1000;
  const maxDelay = Math.max(firstDelay, 30_000);
  let stopping = false;
  let runner = await start();
  let restartTimer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;
  let restartDelay = firstDelay;
  /** Per runner: settles when it ends or is given up. Each runner is replaced at most once. */
  const gone = new WeakMap<Runner, Promise<void>>();

  const supervise = (watched: Runner) => {
    let settle!: () => void;
    gone.set(watched, new Promise<void>((resolve) => (settle = resolve)));
    let retired = false;
    let stallTimer: NodeJS.Timeout | undefined;
    const retire = (say: () => void) => {
      if (retired) return;
      retired = true;
      clearTimeout(stallTimer);
      for (const event of POOL_DONE) watched.events.off(event, poolDone);
      settle();
      if (stopping) return;
      say();
      scheduleRestart();
    };
    watched.promise.then(
      () => retire(() => log.error('worker stopped by itself; starting a new one')),
      (err: Error) => retire(() => log.error('worker stopped on an error; starting a new one', err)),
    );
    const poolDone = () => {
      if (retired || stallTimer) return;
      stallTimer = setTimeout(() => {
        // Its pool runs nothing and takes no job: releasing its cron and listener (stop() does not
        // wait for the pool again) is all that is left to do with it; it is not awaited. A stopping
        // supervisor has called its stop() already.
        if (!stopping) watched.stop().catch(() => undefined);
        retire(() => log.error(`worker did not end within ${stalledShutdownMs / 1000} s of its pool's shutdown; gave it up, starting a new one`));
      }, stalledShutdownMs);
      stallTimer.unref();
    };
    for (const event of POOL_DONE) watched.events.on(event, poolDone);
  };

  const scheduleRestart = () => {
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      restarting = (async () => {
        try {
          const next = await start();
          if (stopping) {
            await next.stop().catch(() => undefined);
            return;
          }
          runner = next;
          restartDelay = firstDelay;
          supervise(next);
          log.warn('worker started again');
        } catch (err) {
          if (stopping) return;
          log.error(`worker could not start; trying again in ${restartDelay / 1000} s`, err as Error);
          restartDelay = Math.min(restartDelay * 2, maxDelay);
          scheduleRestart();
        }
      })().finally(() => {
        restarting = undefined;
      });
    }, restartDelay);
  };

  supervise(runner);
  let stopped: Promise<void> | undefined;
  return {
    current: () => runner,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        clearTimeout(restartTimer);
        await restarting;
        // A runner that failed by itself was logged above: its stop() is then a no-op or the same
        // error. One whose shutdown stalls is given up by its watch, and this stop goes on.
        await Promise.race([runner.stop().catch(() => undefined), gone.get(runner)]);
      })()),
  };
}
