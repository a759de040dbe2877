import type { Knex } from 'knex';
import pg from 'pg';

/** What a tarn pool (knex's `client.pool`) tells about itself; only its public methods and events. */
interface TarnPool {
  max: number;
  numUsed(): number;
  on(event: 'acquireSuccess' | 'release' | 'destroySuccess', listener: () => void): void;
}

/**
 * How long the pool has been wedged: every slot in use and no connection handed out, given back or
 * destroyed since. Past the acquire timeout, every request that needs the database is refused; if
 * a fresh connection to the database still succeeds (see `databaseAnswers`), the process cannot
 * recover by itself and its liveness probe says so (src/ops/health.ts).
 */
export function watchPool(db: Knex): { stuckForMs(): number; acquireTimeoutMs: number } {
  const pool = (db.client as { pool?: TarnPool }).pool;
  let lastProgress = Date.now();
  const progress = () => (lastProgress = Date.now());
  pool?.on('acquireSuccess', progress);
  pool?.on('release', progress);
  pool?.on('destroySuccess', progress);
  const config = db.client.config as Knex.Config;
  return {
    acquireTimeoutMs: config.acquireConnectionTimeout ?? 60_000,
    stuckForMs: () => (pool && pool.numUsed() >= pool.max ? Date.now() - lastProgress : 0),
  };
}

/** Whether a new connection of the pool's settings, outside the pool, answers a query within `ms`. */
export async function databaseAnswers(db: Knex, ms: number): Promise<boolean> {
  const settings = db.client.config.connection as pg.ClientConfig;
  const client = new pg.Client({ ...settings, application_name: 'procurement-api-probe', connectionTimeoutMillis: ms, query_timeout: ms });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    client.end().catch(() => undefined);
  }
}
