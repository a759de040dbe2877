import type { Knex } from 'knex';
import pg from 'pg';

/** What a tarn pool (knex's `client.pool`) tells about itself; only its public methods and events. */
interface TarnPool {
  max: number;
  numUsed(): number;
  on(event: 'acquireSuccess' | 'destroySuccess', listener: (eventId: number, connection: PooledConnection) => void): void;
  on(event: 'release', listener: (connection: PooledConnection) => void): void;
}

/** A pool's connection: a pg client, whose backend process id PostgreSQL shows in pg_stat_activity. */
interface PooledConnection {
  processID?: number | null;
}

export interface PoolWatch {
  stuckForMs(): number;
  acquireTimeoutMs: number;
  /** Backend process ids of the connections handed out and not given back. */
  inUse(): number[];
}

/**
 * How long the pool has been full: every slot in use and no connection handed out, given back or
 * destroyed since, and which connections are in use. Past the acquire timeout, every request that
 * needs the database is refused; if one of those connections is not working on the database
 * (`workingSessions`: the pool lost track of it) while a fresh connection succeeds, the process
 * cannot recover by itself and its liveness probe says so (src/resources/health/handlers.ts).
 */
export function watchPool(db: Knex): PoolWatch {
  const pool = (db.client as { pool?: TarnPool }).pool;
  let lastProgress = Date.now();
  const used = new Set<PooledConnection>();
  pool?.on('acquireSuccess', (_, connection) => {
    lastProgress = Date.now();
    used.add(connection);
  });
  pool?.on('release', (connection) => {
    lastProgress = Date.now();
    used.delete(connection);
  });
  pool?.on('destroySuccess', (_, connection) => {
    lastProgress = Date.now();
    used.delete(connection);
  });
  const config = db.client.config as Knex.Config;
  return {
    acquireTimeoutMs: config.acquireConnectionTimeout ?? 60_000,
    stuckForMs: () => (pool && pool.numUsed() >= pool.max ? Date.now() - lastProgress : 0),
    inUse: () => [...used].map((c) => c.processID ?? 0),
  };
}

/**
 * Of the sessions `pids`, those working on the database: running a statement (waiting on a lock
 * included) or between statements for less than `idleMs`. Asked on a new connection of the pool's
 * settings, outside the pool; undefined when the database does not answer within `ms`. A session
 * PostgreSQL does not show (ended, or behind PgBouncer, whose process ids are its own) is not
 * counted as working.
 */
export async function workingSessions(db: Knex, pids: number[], idleMs: number, ms: number): Promise<Set<number> | undefined> {
  const settings = db.client.config.connection as pg.ClientConfig;
  const client = new pg.Client({ ...settings, application_name: 'procurement-api-probe', connectionTimeoutMillis: ms, query_timeout: ms });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE pid = ANY($1::int[]) AND (state = 'active' OR state_change > now() - make_interval(secs => $2::float8 / 1000))`,
      [pids, idleMs],
    );
    return new Set(rows.map((r) => r.pid));
  } catch {
    return undefined;
  } finally {
    client.end().catch(() => undefined);
  }
}
