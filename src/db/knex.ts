import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { join } from 'node:path';
import { DEFAULT_PREPARED_STATEMENTS, PreparedStatementSettings, setPreparedStatements } from './prepared';

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
): Db {
  const db = knexFactory({
    client: 'pg',
    connection: {
      connectionString,
      // A database outage must become a quick 503, not a hang.
      connectionTimeoutMillis: 5000,
      application_name: 'procurement-api',
      // A runaway statement is cancelled by PostgreSQL and answered 503 (pg-errors.ts) rather than
      // holding a connection and its request forever (DB_STATEMENT_TIMEOUT_MS).
      ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
      // The working set is in memory (or on SSD): a random page costs about what a sequential one
      // does. With PostgreSQL's default of 4 the planner read all 190,000 items of an organization
      // to find one job's 6,000 rather than use the (organization_id, order_id) index.
      // (A DATABASE_URL that sets its own `options` keeps them.)
      ...(/[?&]options=/.test(connectionString) ? {} : { options: '-c random_page_cost=1.1' }),
    },
    pool: { min: 0, max: poolMax },
    // A request that cannot get a connection in this time is answered 503 (src/db/pg-errors.ts).
    acquireConnectionTimeout: acquireTimeoutMillis,
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: ['.js'], tableName: 'knex_migrations' },
    log: knexLog,
  });
  setPreparedStatements(db, preparedStatements);
  return db;
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
