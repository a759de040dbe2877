import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Queryable } from './knex';

/**
 * Runs a read as a named prepared statement, so PostgreSQL plans each statement shape once per
 * connection (and moves to a generic plan after a few runs) instead of on every request: our list
 * statements build their JSON with many joins and subqueries, and planning them cost several times
 * their execution. The name is a hash of the SQL text, so one shape always maps to one plan; the
 * values stay parameters. Inside a transaction the statement simply runs on the transaction.
 */
interface PgConnection {
  query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, any>[] }>;
}

export async function firstRowPrepared(db: Queryable, query: Knex.QueryBuilder): Promise<Record<string, any> | undefined> {
  if ((db as Knex.Transaction).isTransaction) return query.first();
  const { sql, bindings } = query.toSQL().toNative();
  const name = 'p' + createHash('sha1').update(sql).digest('hex').slice(0, 24);
  const client = (db as Knex).client;
  const connection = (await client.acquireConnection()) as PgConnection;
  try {
    const result = await connection.query({ name, text: sql, values: bindings as unknown[] });
    return result.rows[0];
  } finally {
    await client.releaseConnection(connection);
  }
}
