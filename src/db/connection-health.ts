import type pg from 'pg';

/**
 * Connections of the pool this process has given up on: one whose statement was cut short (a
 * cursor that errored, a close that did not complete in time) or whose server session ended. The
 * pool's `validate` (knex.ts) refuses them, so tarn destroys them rather than hand them out again,
 * even in the moment between our end() and pg's 'end' event.
 */
const retired = new WeakSet<object>();

/** Whether the pool may hand the connection out again. */
export function usable(connection: object): boolean {
  return !retired.has(connection);
}

/**
 * Gives up on a connection: the pool will destroy it instead of reusing it, and its socket is
 * closed now (pg destroys the socket when a statement is still active, so this never waits on the
 * server). Safe to call more than once, and on a connection that is already gone.
 */
export function retire(connection: pg.Client): void {
  if (retired.has(connection)) return;
  retired.add(connection);
  connection.end().catch(() => undefined);
}

/**
 * Watches a connection checked out for a long-running read: `gone` resolves as soon as pg reports
 * it lost ('error' or 'end'), and the connection is then retired. `stop()` removes the listeners.
 */
export function watchConnection(connection: pg.Client): { gone: Promise<void>; lost(): boolean; stop(): void } {
  let lost = false;
  let resolve!: () => void;
  const gone = new Promise<void>((r) => (resolve = r));
  const onLost = () => {
    lost = true;
    retire(connection);
    resolve();
  };
  connection.on('error', onLost);
  connection.on('end', onLost);
  return {
    gone,
    lost: () => lost || retired.has(connection),
    stop: () => {
      connection.off('error', onLost);
      connection.off('end', onLost);
    },
  };
}

/** Marks a pool connection retired when pg reports it lost while idle in the pool (knex afterCreate). */
export function watchPooled(connection: pg.Client): void {
  const onLost = () => retired.add(connection);
  connection.on('error', onLost);
  connection.on('end', onLost);
}
