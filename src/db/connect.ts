import { join } from 'node:path';
import type { Config } from '../config';
import { createDb, Db, migrateLatest } from './knex';
import { ensureDatabase, startEmbedded } from './embedded';

export const EMBEDDED_DATABASE = 'procurement';

export interface OpenDatabase {
  db: Db;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * The service's database: DATABASE_URL when set, otherwise the embedded PostgreSQL in
 * .data/postgres (started, or reused when already running). Pending migrations are applied.
 */
export async function openDatabase(config: Config): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let stop = async () => undefined as void;
  if (!url) {
    const server = await startEmbedded(join(config.dataDir, 'postgres'));
    url = await ensureDatabase(server.adminUrl, EMBEDDED_DATABASE);
    stop = server.stop;
  }
  const db = createDb(url, config.dbPoolMax, undefined, { enabled: config.dbPreparedStatements, max: config.dbPreparedStatementsMax }, config.statementTimeoutMs);
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
