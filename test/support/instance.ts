import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config';
import { createDb, type Db } from '../../src/db/knex';
import { closeApp, createApp } from '../../src/app';
import { listen } from '../../src/http/server';
import { Lifecycle } from '../../src/ops/lifecycle';
import { harness } from './harness';

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
