import type { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDb, Db, migrateLatest } from '../../src/db/knex';
import { dropDatabase, ensureDatabase, removeStaleClusters, startEmbedded } from '../../src/db/embedded';
import { loadConfig } from '../../src/config';
import { closeApp, createApp } from '../../src/app';
import { listen } from '../../src/http/server';

/** DATA_DIR as the service reads it (src/config.ts). */
const DATA_DIR = loadConfig().dataDir;

/**
 * The test run's server and database. Every run gets a database of its own: a fresh embedded
 * PostgreSQL cluster in .data/test-<pid>, or a scratch database on the DATABASE_URL server, so
 * runs never share state. With API_BASE_URL the suites talk to that server instead (for example
 * through `prism proxy`, see scripts/proxy-check.mjs), DATABASE_URL must name the database that
 * server uses, and JWT_SECRET its secret (for the tests that sign tokens themselves).
 */
export interface Harness {
  baseUrl: string;
  db: Db;
  /** The database the service under test uses (for the admin CLI tests). */
  databaseUrl: string;
  /** The secret the in-process service signs tokens with. */
  jwtSecret: string;
  /** True when the service runs in this process (coverage and response validation are ours). */
  inProcess: boolean;
}

let current: Harness | undefined;
const cleanups: (() => Promise<void>)[] = [];

export function harness(): Harness {
  if (!current) throw new Error('the test harness is not started (test/support/hooks.ts)');
  return current;
}

async function testDatabaseUrl(): Promise<string> {
  const configured = process.env.DATABASE_URL;
  if (process.env.API_BASE_URL) {
    // The suites provision organizations straight into the database: it must be the server's.
    if (!configured) throw new Error('API_BASE_URL needs DATABASE_URL: the database the server at API_BASE_URL uses (npm run proxy-check sets both)');
    return configured;
  }
  if (configured) {
    const name = `procurement_test_${process.pid}_${randomBytes(3).toString('hex')}`;
    try {
      const url = await ensureDatabase(configured, name);
      cleanups.push(() => dropDatabase(configured, name));
      // Behind a transaction pooler the direct (session) URL names the same scratch database.
      if (process.env.DATABASE_DIRECT_URL) {
        const direct = new URL(process.env.DATABASE_DIRECT_URL);
        direct.pathname = '/' + name;
        process.env.DATABASE_DIRECT_URL = direct.toString();
      }
      return url;
    } catch {
      // No CREATEDB right: use the configured database as it is.
      return configured;
    }
  }
  removeStaleClusters(DATA_DIR, 'test');
  const dir = join(DATA_DIR, `test-${process.pid}`);
  const server = await startEmbedded(dir);
  cleanups.push(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return ensureDatabase(server.adminUrl, 'procurement_test');
}

export async function startHarness(): Promise<Harness> {
  process.env.NODE_ENV = 'test';
  // The suites make many requests per organization: the run's limits are high, and the rate-limit
  // suite gives its own organization low ones (admin org setting).
  process.env.RATE_LIMIT_BURST ??= '100000';
  process.env.RATE_LIMIT_HOURLY ??= '10000000';
  const url = await testDatabaseUrl();
  // The service's own database settings (DB_PREPARED_STATEMENTS=off behind PgBouncer, the statement timeout).
  const settings = loadConfig();
  const db = createDb(url, 10, undefined, { enabled: settings.dbPreparedStatements, max: settings.dbPreparedStatementsMax }, settings.statementTimeoutMs);
  cleanups.unshift(() => db.destroy());
  await migrateLatest(db);

  if (process.env.API_BASE_URL) {
    current = { baseUrl: process.env.API_BASE_URL.replace(/\/$/, ''), db, databaseUrl: url, jwtSecret: process.env.JWT_SECRET ?? '', inProcess: false };
    return current;
  }
  const config = { ...loadConfig(), mode: 'test' as const };
  const jwtSecret = 'test-secret-' + randomBytes(8).toString('hex');
  const app = await createApp({ db, config, jwtSecret });
  const server: Server = await listen(app, 0, '127.0.0.1');
  cleanups.unshift(() => closeApp(app));
  cleanups.unshift(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  current = { baseUrl: `http://127.0.0.1:${port}`, db, databaseUrl: url, jwtSecret, inProcess: true };
  return current;
}

export async function stopHarness(): Promise<void> {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch((err) => console.error('cleanup:', err));
  current = undefined;
}
