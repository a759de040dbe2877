import Cursor from 'pg-cursor';
import type pg from 'pg';
import type { Knex } from 'knex';
import type { Queryable } from './knex';

type Row = Record<string, any>;

/**
 * Rows fetched per round trip: one. A row of a bulk page is a part of a hundred objects
 * (resource.ts, ROWS_PER_PART), so each connection holds one part at a time; fetching four per
 * round trip held four, which under 32 concurrent bulk pages took the process's peak memory past
 * its target (bench/results), for no measurable gain in throughput.
 */
const BATCH = 1;

/**
 * Runs a read through a pg-cursor (a portal fetched BATCH rows at a time) on a connection of the
 * pool, and hands its rows over as they are fetched, so a bulk page never sits whole in the
 * process. The first batch is fetched before this resolves (a failing statement throws here,
 * before any response is started). The connection goes back to the pool when the rows are
 * exhausted or the consumer stops early (`return()`).
 */
export async function streamRows(db: Queryable, query: Knex.QueryBuilder | Knex.Raw): Promise<AsyncGenerator<Row, void>> {
  const native = query.toSQL().toNative();
  const knexClient = (db as Knex).client;
  const connection = (await knexClient.acquireConnection()) as pg.Client;
  const cursor = connection.query(new Cursor<Row>(native.sql, native.bindings as unknown[]));
  const release = async () => {
    await cursor.close().catch(() => undefined);
    await knexClient.releaseConnection(connection);
  };
  let first: Row[];
  try {
    first = await cursor.read(BATCH);
  } catch (err) {
    await release();
    throw err;
  }

  async function* rows(): AsyncGenerator<Row, void> {
    try {
      for (let batch = first; batch.length > 0; batch = await cursor.read(BATCH)) yield* batch;
    } finally {
      await release();
    }
  }
  return rows();
}
