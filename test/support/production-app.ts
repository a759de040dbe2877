import type { AddressInfo } from 'node:net';
import { closeApp, createApp } from '../../src/app';
import { listen } from '../../src/http/server';
import { loadConfig } from '../../src/config';
import { createDb, type Db } from '../../src/db/knex';
import { harness } from './harness';

/** A production-mode app started in this process, on the harness's database. */
export interface ProductionApp {
  base: string;
  /** Its own database handle (two connections). */
  db: Db;
  stop(): Promise<void>;
}

/**
 * For the tests of what only production mode does (streamed bulk pages, compression): the
 * harness's service runs in test mode, which validates each page whole before sending it. Two
 * connections, so a leaked one stalls the requests after it. Prepared statements as configured:
 * off behind PgBouncer in transaction mode (scripts/pgbouncer-check.mjs), where a named statement
 * may meet another server connection.
 */
export async function startProductionApp(): Promise<ProductionApp> {
  const config = loadConfig();
  const db = createDb(harness().databaseUrl, 2, undefined, { enabled: config.dbPreparedStatements, max: config.dbPreparedStatementsMax });
  const app = await createApp({ db, config: { ...config, mode: 'production' }, jwtSecret: harness().jwtSecret });
  const server = await listen(app, 0, '127.0.0.1');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    db,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await closeApp(app);
      await db.destroy();
    },
  };
}
