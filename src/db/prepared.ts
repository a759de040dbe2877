import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Queryable } from './knex';

/**
 * Runs a statement as a named prepared statement, so PostgreSQL plans each statement shape once
 * per connection (and moves to a generic plan after a few runs) instead of on every request: our
 * list statements build their JSON with many joins and subqueries, and planning them cost several
 * times their execution. The name is a hash of the SQL text, so one shape always maps to one plan;
 * the values stay parameters. In a transaction it runs on the transaction's connection (named
 * statements outlive the transaction, as PostgreSQL keeps them per session).
 */
interface PgConnection {
  query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, any>[] }>;
}

export async function rowsPrepared(db: Queryable, query: Knex.QueryBuilder | Knex.Raw): Promise<Record<string, any>[]> {
  const native = query.toSQL().toNative();
  const client = (db as Knex).client;
  const connection = (await client.acquireConnection()) as PgConnection;
  try {
    return (await connection.query({ name: statementName(native.sql), text: native.sql, values: native.bindings as unknown[] })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A statement's text with $n placeholders and its values (what knex's `toSQL().toNative()` gives). */
export interface NativeStatement {
  sql: string;
  bindings: readonly unknown[];
}

/** The first row of a read. */
export async function firstRowPrepared(db: Queryable, query: Knex.QueryBuilder | NativeStatement): Promise<Record<string, any> | undefined> {
  const native = 'toSQL' in query ? query.toSQL().toNative() : query;
  const client = (db as Knex).client;
  const connection = (await client.acquireConnection()) as PgConnection;
  try {
    return (await connection.query({ name: statementName(native.sql), text: native.sql, values: native.bindings as unknown[] })).rows[0];
  } finally {
    await client.releaseConnection(connection);
  }
}

const names = new Map<string, string>();
/** A hash of the SQL text: one statement shape, one name, one plan per connection. */
export function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = 'p' + createHash('sha1').update(sql).digest('hex').slice(0, 24);
    if (names.size > 10_000) names.clear();
    names.set(sql, name);
  }
  return name;
}
