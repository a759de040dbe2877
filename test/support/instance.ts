import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config';
import { createDb, type Db } from '../../src/db/knex';
import { closeApp, createApp } from '../../src/app';
import { listen } from '../../src/http/server';
import { Lifecycle } from '../../src/ops/lifecycle';
import { ROOT } from '../../src/paths';
import { harness } from './harness';
import { startChild, type Child } from './child';

/**
 * Another in-process service instance with a pool of its own, on the run's database (or on
 * `databaseUrl`): for tests of several instances, of a lifecycle of its own, of settings the
 * shared instance does not have (METRICS_TOKEN, a tiny statement timeout, a log destination).
 */
export interface Instance {
  baseUrl: string;
  db: Db;
  lifecycle: Lifecycle;
  close(): Promise<void>;
}

export async function startInstance(opts: { config?: Partial<Config>; logger?: Logger; databaseUrl?: string; jwtSecret?: string } = {}): Promise<Instance> {
  const config: Config = { ...loadConfig(), mode: 'test', ...opts.config };
  // A short acquire timeout: an outage must become a 503 within the probe's patience.
  const db = createDb(
    opts.databaseUrl ?? harness().databaseUrl,
    4,
    1500,
    { enabled: config.dbPreparedStatements, max: config.dbPreparedStatementsMax },
    config.statementTimeoutMs,
  );
  const lifecycle = new Lifecycle();
  const app = await createApp({ db, config, jwtSecret: opts.jwtSecret ?? harness().jwtSecret, lifecycle, logger: opts.logger });
  const server: Server = await listen(app, 0, '127.0.0.1');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    db,
    lifecycle,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp(app);
      await db.destroy();
    },
  };
}

/** fetch against an instance, with the body parsed when it is JSON. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
  });
  const text = await res.text();
  const body = /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * The compiled service in a process of its own (`dist/src/server.js`, as `npm run start:prod` runs
 * it) on the run's database, on a free port (PORT=0), with `env` over the defaults below; resolves
 * once it says where it listens, fails with its output if it exits first or takes over a minute.
 */
export async function startCompiledServer(env: Record<string, string> = {}): Promise<{ child: Child; base: string }> {
  const child = startChild(process.execPath, [join(ROOT, 'dist', 'src', 'server.js')], {
    env: {
      ...process.env,
      DATABASE_URL: harness().databaseUrl,
      PORT: '0',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      JWT_SECRET: harness().jwtSecret || 'compiled-server-test',
      ...env,
    },
  });
  const listening = /listening on http:\/\/localhost:(\d+)/;
  for (let i = 0; i < 1200 && !listening.test(child.output()) && child.process.exitCode === null; i++) await new Promise((r) => setTimeout(r, 50));
  const port = listening.exec(child.output())?.[1];
  if (!port) {
    await child.stop();
    throw new Error(`the server did not start:\n${child.output().slice(-3000)}`);
  }
  return { child, base: `http://127.0.0.1:${port}` };
}
