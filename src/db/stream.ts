import pg from 'pg';
import type { Knex } from 'knex';
import type { Queryable } from './knex';
import { carryCheck, pendingCheck } from './credential-check';
import { statementName } from './prepared';

type Row = Record<string, any>;

interface PgClient {
  query(q: pg.Query): pg.Query;
  connection: { stream: NodeJS.ReadableStream & { isPaused(): boolean } };
}

/** Rows waiting for the consumer before the socket to PostgreSQL is paused. */
const HIGH_WATER = 4;

/**
 * Runs a read as a named prepared statement and hands its rows over as they arrive, holding only
 * a few: the socket to PostgreSQL is paused while the consumer is behind, so a bulk page never
 * sits whole in the process. The connection goes back to the pool when the rows are exhausted, or,
 * when the consumer stops early (`return()`), once the statement has finished. A read request's
 * credential check rides on the statement and is settled by its first row (or on its own).
 */
export async function streamPrepared(db: Queryable, query: Knex.QueryBuilder | Knex.Raw): Promise<AsyncGenerator<Row, void>> {
  const native = query.toSQL().toNative();
  const check = pendingCheck(db);
  if (check) check.claimed = true;
  const { text, values } = check ? carryCheck(native.sql, native.bindings as unknown[], check) : { text: native.sql, values: native.bindings as unknown[] };
  const knexClient = (db as Knex).client;
  const client = (await knexClient.acquireConnection()) as PgClient;
  const socket = client.connection.stream;

  const queue: Row[] = [];
  let finished = false;
  let discard = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const q = client.query(new pg.Query({ name: statementName(text), text, values }));
  q.on('row', (row: Row) => {
    if (discard) return;
    queue.push(row);
    if (queue.length >= HIGH_WATER && !socket.isPaused()) socket.pause();
    signal();
  });
  q.on('end', () => {
    finished = true;
    signal();
  });
  q.on('error', (err: unknown) => {
    failure = err;
    finished = true;
    signal();
  });
  const settled = new Promise<void>((resolve) => {
    q.once('end', resolve);
    q.once('error', resolve);
  });

  async function* rows(): AsyncGenerator<Row, void> {
    let first = true;
    try {
      for (;;) {
        if (queue.length) {
          let row = queue.shift()!;
          if (socket.isPaused() && queue.length < HIGH_WATER / 2) socket.resume();
          if (check && first) {
            const { __live: live, ...rest } = row;
            check.settle(live === true);
            row = rest;
          } else if (check) {
            delete row.__live;
          }
          first = false;
          yield row;
          continue;
        }
        if (failure) throw failure;
        if (finished) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      // Stopped early: let the statement run out (rows dropped), then give the connection back.
      discard = true;
      queue.length = 0;
      if (socket.isPaused()) socket.resume();
      await settled;
      await knexClient.releaseConnection(client);
      if (check && first) check.claimed = false;
    }
  }
  return rows();
}

