import type { Knex } from 'knex';
import type { Queryable } from './knex';

/**
 * Runs a statement as a named prepared statement, so PostgreSQL plans each statement shape once
 * per connection (and moves to a generic plan after a few runs) instead of on every request: our
 * list statements build their JSON with many joins and subqueries, and planning them cost several
 * times their execution. The values stay parameters (`_in` lists are one array parameter, see
 * list.ts), so a shape is a filter/order combination, not a set of values.
 *
 * Bounded: each connection keeps at most `max` statements, least recently used first out
 * (DEALLOCATE), because every prepared statement holds memory in its PostgreSQL backend until the
 * session ends. Names are never reused on a connection (pg remembers every name it prepared and
 * would skip the Parse of a reused one); as that record only grows, a connection that has prepared
 * RETIRE_AFTER times its cap is ended after use and the pool opens a fresh one. With `enabled`
 * off (DB_PREPARED_STATEMENTS=off, for PgBouncer in transaction mode) statements are unnamed.
 */
export interface PreparedStatementSettings {
  enabled: boolean;
  /** Statements kept per connection. */
  max: number;
}

export const DEFAULT_PREPARED_STATEMENTS: PreparedStatementSettings = { enabled: true, max: 200 };
const RETIRE_AFTER = 10;

interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

interface PgConnection {
  query(q: { name?: string; text: string; values?: unknown[] }): Promise<PgResult>;
  end(): Promise<void>;
}

// By knex's config object, which a transaction's client shares with its pool's.
const settingsByConfig = new WeakMap<object, PreparedStatementSettings>();

/** The prepared-statement settings of a database handle created by createDb. */
export function setPreparedStatements(db: Knex, settings: PreparedStatementSettings): void {
  settingsByConfig.set(db.client.config, settings);
}

function settingsOf(db: Queryable): PreparedStatementSettings {
  return settingsByConfig.get((db as Knex).client.config) ?? DEFAULT_PREPARED_STATEMENTS;
}

interface ConnectionStatements {
  /** Statement text -> name, least recently used first. */
  byText: Map<string, string>;
  /** Names this connection has prepared, ever. */
  prepared: number;
}
const statements = new WeakMap<PgConnection, ConnectionStatements>();
let serial = 0;

async function runPrepared(db: Queryable, text: string, values: readonly unknown[]): Promise<PgResult> {
  const client = (db as Knex).client;
  const connection = (await client.acquireConnection()) as PgConnection;
  const { enabled, max } = settingsOf(db);
  let retire = false;
  try {
    if (!enabled) return await connection.query({ text, values: values as unknown[] });
    let own = statements.get(connection);
    if (!own) statements.set(connection, (own = { byText: new Map(), prepared: 0 }));
    let name = own.byText.get(text);
    if (name !== undefined) {
      own.byText.delete(text);
    } else {
      while (own.byText.size >= Math.max(1, max)) {
        const [oldest, oldName] = own.byText.entries().next().value as [string, string];
        own.byText.delete(oldest);
        // Queued ahead of the statement on this connection; a statement whose Parse failed was
        // never created, so "does not exist" is fine.
        connection.query({ text: `DEALLOCATE ${oldName}` }).catch(() => undefined);
      }
      name = `s${(++serial).toString(36)}`;
      own.prepared++;
    }
    // Not in the middle of a transaction: the next use outside one retires it.
    retire = own.prepared >= max * RETIRE_AFTER && !('isTransaction' in db && db.isTransaction);
    own.byText.set(text, name);
    return await connection.query({ name, text, values: values as unknown[] });
  } finally {
    // Ending it marks it disposed for knex, whose pool then replaces it.
    if (retire) await connection.end().catch(() => undefined);
    await client.releaseConnection(connection);
  }
}

export async function rowsPrepared(db: Queryable, query: Knex.QueryBuilder | Knex.Raw | NativeStatement): Promise<Record<string, unknown>[]> {
  const native = 'toSQL' in query ? query.toSQL().toNative() : query;
  return (await runPrepared(db, native.sql, native.bindings)).rows;
}

/** A statement's text with $n placeholders and its values (what knex's `toSQL().toNative()` gives). */
export interface NativeStatement {
  sql: string;
  bindings: readonly unknown[];
}

/** The first row of a read. */
export async function firstRowPrepared(db: Queryable, query: Knex.QueryBuilder | NativeStatement): Promise<Record<string, unknown> | undefined> {
  const native = 'toSQL' in query ? query.toSQL().toNative() : query;
  return (await runPrepared(db, native.sql, native.bindings)).rows[0];
}

/** A pg-Pool-like client (`query(config)`) over the knex pool, for libraries that take one. */
export interface PoolLike {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<PgResult>;
}

/**
 * The knex pool as a pg Pool for a library that sends its own statements (rate-limiter-flexible,
 * on every request): they run as our other statements do, prepared once per connection under our
 * names and within the per-connection cap, or unnamed with DB_PREPARED_STATEMENTS=off (PgBouncer
 * transaction pooling). The library's own statement names are not used: a name it reuses on every
 * connection would escape the cap and break PgBouncer.
 */
export function libraryPool(db: Knex): PoolLike {
  return { query: ({ text, values }) => runPrepared(db, text, values ?? []) };
}
