import Cursor from 'pg-cursor';
import type pg from 'pg';
import type { Knex } from 'knex';
import type { Queryable } from './knex';
import { retire, watchConnection } from './connection-health';

type Row = Record<string, unknown>;

/**
 * Rows fetched per round trip: one. A row of a bulk page is a part of a hundred objects
 * (resource.ts, ROWS_PER_PART), so each connection holds one part at a time; fetching four per
 * round trip held four, which under 32 concurrent bulk pages took the process's peak memory past
 * its target (bench/results), for no measurable gain in throughput.
 */
const BATCH = 1;

/**
 * How long closing a cursor stopped early may take before its connection is given up on. A close
 * waits for the server's ReadyForQuery, which never comes on a connection that died (or after the
 * cursor's error already consumed it: pg-cursor issues brianc/node-postgres#2642 and #2588); the
 * pool must get its slot back regardless.
 */
const CLOSE_TIMEOUT_MS = 2000;

/** Resolves true when `work` settles, false when `gone` resolves or `ms` pass first. */
function settlesWithin(work: Promise<unknown>, gone: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(
      () => true,
      () => false,
    ),
    gone.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs a read through a pg-cursor (a portal fetched BATCH rows at a time) on a connection of the
 * pool, and hands its rows over as they are fetched, so a bulk page never sits whole in the
 * process. The first batch is fetched before this resolves (a failing statement throws here,
 * before any response is started).
 *
 * The connection always goes back to the pool, whatever happens: when the rows are exhausted or
 * the consumer stops early (`return()`) after a clean close of the cursor; when a read fails or the
 * connection is lost (pg 'error'/'end'), or the close does not complete within CLOSE_TIMEOUT_MS,
 * it is retired first (connection-health.ts: ended now, and destroyed rather than reused by the
 * pool), never waited on.
 */
export async function streamRows(db: Queryable, query: Knex.QueryBuilder | Knex.Raw): Promise<AsyncGenerator<Row, void>> {
  const native = query.toSQL().toNative();
  const knexClient = (db as Knex).client;
  const connection = (await knexClient.acquireConnection()) as pg.Client;
  const watch = watchConnection(connection);
  const cursor = connection.query(new Cursor<Row>(native.sql, native.bindings as unknown[]));
  let failed = false;
  let released: Promise<void> | undefined;
  const release = () =>
    (released ??= (async () => {
      try {
        if (failed || watch.lost() || !(await settlesWithin(cursor.close(), watch.gone, CLOSE_TIMEOUT_MS))) retire(connection);
      } finally {
        watch.stop();
        await knexClient.releaseConnection(connection);
      }
    })());
  // A read on a connection pg has already reported lost may never settle (no callback for a
  // message that cannot be sent): the loss itself ends the read.
  const lostRead = watch.gone.then(() => {
    throw new Error('The database connection was lost during a streamed read.');
  });
  lostRead.catch(() => undefined);
  const read = async (): Promise<Row[]> => {
    try {
      return await Promise.race([cursor.read(BATCH), lostRead]);
    } catch (err) {
      // An errored cursor's connection is in a state only pg knows (a Sync in flight, or a dead
      // socket): not worth a close that may never complete.
      failed = true;
      throw err;
    }
  };
  let first: Row[];
  try {
    first = await read();
  } catch (err) {
    await release();
    throw err;
  }

  async function* rows(): AsyncGenerator<Row, void> {
    try {
      for (let batch = first; batch.length > 0; batch = await read()) yield* batch;
    } finally {
      await release();
    }
  }
  return rows();
}

/**
 * Rows already read whole, handed over as streamRows hands over its rows (a page that is not
 * streamed). Each row is let go as it is handed over, so a part already written can be collected
 * while the rest of the page is still being sent.
 */
export async function* rowsOf(rows: Row[]): AsyncGenerator<Row, void> {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    rows[i] = {};
    yield row;
  }
}
