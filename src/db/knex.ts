import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { join } from 'node:path';
import { DEFAULT_PREPARED_STATEMENTS, PreparedStatementSettings, setPreparedStatements } from './prepared';
import { usable, watchPooled } from './connection-health';

// numeric and bigint arrive as strings by default; our numbers fit in a double.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;
export type Tx = Knex.Transaction;
/** Every query function takes this first, so a batch can run several in one transaction. */
export type Queryable = Knex | Knex.Transaction;

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'migrations');

/**
 * Where knex's own warnings go (a connection lost, a connection that could not be acquired, with
 * the driver's stack): on stderr by default; the service sends them to its JSON log
 * (src/server.ts), and the tests capture them (test/support/db-warnings.ts) so the outage tests
 * can assert them without printing them.
 */
let warningSink: (message: string) => void = (message) => console.warn(message);

/** Sends knex's warnings of every database created from now on, and of those already created, to `sink`; returns the previous sink. */
export function sendDbWarningsTo(sink: (message: string) => void): (message: string) => void {
  const previous = warningSink;
  warningSink = sink;
  return previous;
}

const knexLog = {
  warn: (message: unknown) => warningSink(String(message)),
  error: (message: unknown) => warningSink(String(message)),
  deprecate: (method: string, alternative: string) => warningSink(`${method} is deprecated, use ${alternative}`),
  debug: () => undefined,
};

export function createDb(
  connectionString: string,
  poolMax = 10,
  acquireTimeoutMillis = 10_000,
  preparedStatements: PreparedStatementSettings = DEFAULT_PREPARED_STATEMENTS,
  statementTimeoutMs?: number,
  /** Where knex's own messages go (the service's JSON log, src/ops/log.ts knexLog); else the warning sink above. */
  log?: Knex.Logger,
): Db {
  const db = knexFactory({
    client: 'pg',
    connection: {
      connectionString,
      // A database outage must become a quick 503, not a hang.
      connectionTimeoutMillis: 5000,
      application_name: 'procurement-api',
      // A peer that vanished without closing the connection (a network cut, a failover) is found
      // by TCP keepalive rather than never.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // A runaway statement is cancelled by PostgreSQL and answered 503 (pg-errors.ts) rather than
      // holding a connection and its request forever (DB_STATEMENT_TIMEOUT_MS).
      ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
      // The working set is in memory (or on SSD): a random page costs about what a sequential one
      // does. With PostgreSQL's default of 4 the planner read all 190,000 items of an organization
      // to find one job's 6,000 rather than use the (organization_id, order_id) index.
      // (A DATABASE_URL that sets its own `options` keeps them.)
      ...(/[?&]options=/.test(connectionString) ? {} : { options: '-c random_page_cost=1.1' }),
    },
    pool: {
      min: 0,
      max: poolMax,
      // A connection whose session ended, or that a cut-short stream gave up on, is destroyed
      // rather than handed out again (src/db/connection-health.ts).
      afterCreate: (connection: pg.Client, done: (err: Error | null, connection: pg.Client) => void) => {
        watchPooled(connection);
        done(null, connection);
      },
      validate: usable,
    },
    // A request that cannot get a connection in this time is answered 503 (src/db/pg-errors.ts).
    acquireConnectionTimeout: acquireTimeoutMillis,
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: ['.js'], tableName: 'knex_migrations' },
    // The caller's logger (the server's JSON log), else the sink above (tests capture it).
    log: log ?? knexLog,
  });
  setPreparedStatements(db, preparedStatements);
  return db;
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
