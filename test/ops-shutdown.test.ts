import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { harness } from './support/harness';
import { newOrg, type TestOrg } from './support/client';
import { startCompiledServer } from './support/instance';
import { startChild } from './support/child';
import { ROOT } from '../src/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 50 ms until it holds; fails after `tries` (a bound, not a timing assertion). */
// Up to 50 s: on a loaded 2-core machine a fresh server process can take that long to reach the lock.
// `output`, when given, is the server's output, shown on a failure.
async function until(what: string, check: () => Promise<boolean> | boolean, output?: () => string, tries = 1000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting until ${what}${output ? `; the server's output ends:\n${output().slice(-4000)}` : ''}`);
}

/** The compiled server (as `npm run start:prod` runs it), and a promise of its exit code. */
async function startServer(env: Record<string, string> = {}) {
  const { child, base } = await startCompiledServer(env);
  const exited = new Promise<number | null>((resolve) => {
    if (child.process.exitCode !== null) resolve(child.process.exitCode);
    else child.process.once('exit', (code) => resolve(code));
  });
  return { proc: child.process, base, output: child.output, exited };
}

/** An idle keep-alive connection: one request answered, the socket left open. */
async function idleKeepAlive(base: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (d) => {
      received += String(d);
      if (/\r\n\r\n\{"status":"ok"\}$/.test(received)) resolve();
    });
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  });
  return { socket, closed };
}

const refused = (base: string) =>
  fetch(base + '/healthz', { signal: AbortSignal.timeout(2000) }).then(
    () => false,
    () => true,
  );

/** Holds a lock every insert into jobs waits for, until released: a request in flight, for sure. */
async function blockJobInserts(): Promise<{ release(): Promise<void>; waiting(): Promise<boolean> }> {
  const locker = new pg.Client({ connectionString: harness().databaseUrl });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE jobs IN SHARE MODE');
  return {
    // Asked on another connection: inside the locker's transaction PostgreSQL would answer from the
    // activity snapshot it took at the first look, and never see the batch arrive.
    waiting: async () => (await harness().db.raw("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'jobs'::regclass AND NOT granted")).rows[0].n > 0,
    release: async () => {
      await locker.query('ROLLBACK');
      await locker.end();
    },
  };
}

const batch = (prefix: string) => ({
  inputs: Array.from({ length: 1000 }, (_, i) => ({ code: `${prefix}-${String(i).padStart(4, '0')}`, name: `Shutdown job ${i}` })),
});

describe('ops: graceful shutdown of the compiled server', function () {
  this.timeout(120_000);
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  it('on SIGTERM: no new connections, idle keep-alive closed, the 1000-element batch in flight commits and answers 200, then the process exits 0', async () => {
    const child = await startServer();
    const idle = await idleKeepAlive(child.base);
    const lock = await blockJobInserts();
    let released = false;
    try {
      const answer = fetch(child.base + '/jobs/batch', {
        method: 'POST',
        headers: { Authorization: `Bearer ${org.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(batch('SIGTERM')),
      });
      await until('the batch waits on the lock inside its transaction', () => lock.waiting(), child.output);
      child.proc.kill('SIGTERM');
      await idle.closed;
      await until('the listener refuses new connections', () => refused(child.base), child.output);
      expect(child.proc.exitCode).to.equal(null);
      await lock.release();
      released = true;
      const res = await answer;
      expect(res.status).to.equal(200);
      expect(res.headers.get('connection')).to.equal('close');
      expect(await res.json()).to.have.length(1000);
      expect(await child.exited).to.equal(0);
    } finally {
      if (!released) await lock.release();
      child.proc.kill('SIGKILL');
    }
    const { n } = (await harness().db('jobs').where({ organization_id: org.id }).whereLike('code', 'SIGTERM-%').count('* as n'))[0] as { n: number };
    expect(Number(n)).to.equal(1000);
    expect(child.output()).to.include('"msg":"shutdown complete"');
  });

  it('a SIGTERM while the start is still under way (the listener open, the start-up lines not all out) drains and exits 0', async () => {
    // The start's last step reads the organizations (the demo organization's id): held here, the
    // start waits on it with the listener open. The signal handlers must already be there.
    const locker = new pg.Client({ connectionString: harness().databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE organizations IN ACCESS EXCLUSIVE MODE');
    let locked = true;
    const release = async () => {
      if (!locked) return;
      locked = false;
      await locker.query('ROLLBACK');
      await locker.end();
    };
    const child = await startServer({ BACKGROUND_WORKER: 'off' });
    try {
      const waitingOnOrganizations = async () =>
        (await harness().db.raw("SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'organizations'::regclass AND NOT granted")).rows[0].n > 0;
      await until('the start waits for the organizations', waitingOnOrganizations, child.output);
      let exited: number | null | undefined;
      void child.exited.then((code) => (exited = code));
      child.proc.kill('SIGTERM');
      // Taken (the shutdown logs it) or not (the process ends at once, undrained): then let the start go on.
      await until('the signal has been taken', () => exited !== undefined || child.output().includes('"msg":"shutting down'), child.output);
      await release();
      expect(await child.exited, child.output().slice(-3000)).to.equal(0);
      expect(child.output()).to.include('"msg":"shutdown complete"');
    } finally {
      await release();
      child.proc.kill('SIGKILL');
    }
  });

  it('npm run start:prod: a SIGTERM to npm (what a container runtime sends its main process) reaches the server, which drains and stops', async () => {
    // npm forwards the signal to the shell running the script; only a script that execs node lets
    // it reach the server (a shell that waits on node dies and leaves node running, undrained).
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: harness().databaseUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      JWT_SECRET: harness().jwtSecret || 'npm-start-test',
    };
    delete env.MALLOC_ARENA_MAX;
    const npm = startChild(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'start:prod'], { cwd: ROOT, env });
    /** The server: npm's child (the script's shell became node), on Linux. */
    let server: number | undefined;
    try {
      const listening = /listening on http:\/\/localhost:(\d+)/;
      await until('the server listens', () => listening.test(npm.output()) || npm.process.exitCode !== null, npm.output);
      const port = listening.exec(npm.output())?.[1];
      expect(port, npm.output()).to.be.a('string');
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(base + '/healthz')).status).to.equal(200);
      if (process.platform === 'linux') {
        server = Number(readFileSync(`/proc/${npm.process.pid}/task/${npm.process.pid}/children`, 'utf8').trim().split(' ')[0]);
        // It runs with glibc's arenas capped (README, Operating it: Memory).
        expect(readFileSync(`/proc/${server}/environ`, 'utf8').split('\0')).to.include('MALLOC_ARENA_MAX=2');
      }
      npm.process.kill('SIGTERM');
      await until('the server has shut down', () => npm.output().includes('"msg":"shutdown complete"'), npm.output);
      await until('the port refuses connections', () => refused(base), npm.output);
    } finally {
      npm.process.kill('SIGKILL');
      // A failed check leaves the server running without npm: it goes too (it holds the test database's connections).
      if (server)
        try {
          process.kill(server, 'SIGKILL');
        } catch {
          /* already gone */
        }
    }
  });

  it('gives up at SHUTDOWN_TIMEOUT_MS: a request still running is cut and the process exits 1', async () => {
    const child = await startServer({ SHUTDOWN_TIMEOUT_MS: '500' });
    const lock = await blockJobInserts();
    try {
      const answer = fetch(child.base + '/jobs/batch', {
        method: 'POST',
        headers: { Authorization: `Bearer ${org.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(batch('DEADLINE')),
      }).then(
        (r) => r.status,
        () => 'cut',
      );
      await until('the batch waits on the lock', () => lock.waiting(), child.output);
      child.proc.kill('SIGTERM');
      expect(await child.exited).to.equal(1);
      expect(await answer).to.equal('cut');
    } finally {
      await lock.release();
      child.proc.kill('SIGKILL');
    }
  });
});
