import type { Server } from 'node:http';
import { createHttpTerminator } from 'http-terminator';
import type { Logger } from 'pino';
import type { Lifecycle } from './lifecycle';
import { stopAll } from './stoppables';

export interface ShutdownDeps {
  server: Server;
  lifecycle: Lifecycle;
  logger: Logger;
  /** Closes the pool (and stops an embedded PostgreSQL this process started). */
  closeDatabase(): Promise<void>;
  /** Hard deadline for the whole sequence (SHUTDOWN_TIMEOUT_MS). */
  timeoutMs: number;
  exit(code: number): void;
}

/**
 * Graceful shutdown, in order: /readyz turns 503; the listener closes (no new connections) and
 * idle keep-alive connections are closed while requests in flight run to completion, their
 * connections closed as they finish (http-terminator); background workers stop; the pool closes.
 * Past the deadline the remaining connections are destroyed and the process exits non-zero.
 * Returns the function to call on a signal; a second signal does not start a second sequence.
 */
export function gracefulShutdown(deps: ShutdownDeps): (signal: string) => Promise<void> {
  const terminator = createHttpTerminator({ server: deps.server, gracefulTerminationTimeout: deps.timeoutMs });
  let started: Promise<void> | undefined;
  const run = async (signal: string) => {
    deps.lifecycle.beginShutdown();
    deps.logger.info({ signal, timeoutMs: deps.timeoutMs }, 'shutting down: draining requests in flight');
    const deadline = setTimeout(() => {
      deps.logger.error({ timeoutMs: deps.timeoutMs }, 'shutdown deadline passed: exiting with work unfinished');
      deps.exit(1);
    }, deps.timeoutMs + 1000);
    // Not unref'd: a sequence stuck on a promise that can never settle (a pool waiting for a
    // connection nobody will give back) must still end in exit(1), not in a quiet exit 0 once
    // nothing else keeps the event loop alive.
    let code = 0;
    try {
      await terminator.terminate();
      await stopAll((name, err) => deps.logger.error({ err, worker: name }, 'a background worker failed to stop'));
      await deps.closeDatabase();
      deps.logger.info('shutdown complete');
    } catch (err) {
      deps.logger.error({ err }, 'shutdown failed');
      code = 1;
    }
    clearTimeout(deadline);
    deps.exit(code);
  };
  return (signal) => (started ??= run(signal));
}
