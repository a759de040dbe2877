import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import { join } from 'node:path';

// numeric and bigint arrive as strings by default; our numbers fit in a double.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;
export type Tx = Knex.Transaction;
/** Every query function takes this first, so a batch can run several in one transaction. */
export type Queryable = Knex | Knex.Transaction;

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'migrations');

export function createDb(connectionString: string, poolMax = 10): Db {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString,
      // A database outage must become a quick 503, not a hang.
      connectionTimeoutMillis: 5000,
      application_name: 'procurement-api',
    },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10000,
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: ['.js'], tableName: 'knex_migrations' },
  });
}

export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest();
}
