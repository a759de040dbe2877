import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { createDb } from '../../src/db/knex';
import { closeApp, createApp } from '../../src/app';
import { listen } from '../../src/http/server';

/**
 * A second service instance in a process of its own (for test/auth-instances.test.ts): the app on
 * DATABASE_URL with JWT_SECRET, on a free port, which it prints as `{"port": n}`. Stops on SIGTERM.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const db = createDb(process.env.DATABASE_URL!, 2, undefined, { enabled: config.dbPreparedStatements, max: config.dbPreparedStatementsMax });
  const app = await createApp({ db, config: { ...loadConfig(), mode: 'production' }, jwtSecret: process.env.JWT_SECRET! });
  const server = await listen(app, 0, '127.0.0.1');
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n');
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void closeApp(app)
      .then(() => db.destroy())
      .then(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
