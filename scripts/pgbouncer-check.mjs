// The black-box suite through PgBouncer in transaction pooling mode (how many production setups
// run PostgreSQL), once: `node scripts/pgbouncer-check.mjs [mocha args]` after `tsc -p .`.
//
//   PostgreSQL: PGBOUNCER_UPSTREAM (an admin URL) if set, else the server at 127.0.0.1:5432 when
//   one answers there (CI), else a fresh embedded cluster in .data/pgbouncer-<pid>
//   -> pgbouncer (Debian's package) on a free port, pool_mode=transaction, a temporary config
//   -> mocha with DATABASE_URL=<pgbouncer> (the harness makes its scratch database through it)
//
// Settings the service needs behind a transaction pooler (see README "Behind PgBouncer"):
// DB_PREPARED_STATEMENTS=off (PgBouncer before 1.21 cannot route named prepared statements; the
// setting lives in src/db/prepared.ts), and startup parameters PgBouncer does not forward
// (`options`, `statement_timeout`) are ignored here: set statement_timeout on the role instead.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const { startEmbedded, removeStaleClusters } = require(join(root, 'dist', 'src', 'db', 'embedded.js'));
const pg = require('pg');

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => spawnSync('test', ['-x', p]).status === 0);
if (!PGBOUNCER) {
  console.error('pgbouncer-check: pgbouncer is not installed (apt-get install -y pgbouncer)');
  process.exit(2);
}

const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

async function answers(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

const cleanups = [];
async function cleanup() {
  for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch((e) => console.error('pgbouncer-check cleanup:', e.message ?? e));
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().then(() => process.exit(130)));

async function upstream() {
  if (process.env.PGBOUNCER_UPSTREAM) return new URL(process.env.PGBOUNCER_UPSTREAM);
  const ci = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await answers(ci)) return new URL(ci);
  const dataDir = process.env.DATA_DIR || join(root, '.data');
  removeStaleClusters(dataDir, 'pgbouncer');
  const dir = join(dataDir, `pgbouncer-${process.pid}`);
  const server = await startEmbedded(dir);
  cleanups.push(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return new URL(server.adminUrl);
}

async function main() {
  const up = await upstream();
  const user = decodeURIComponent(up.username || 'postgres');
  const password = decodeURIComponent(up.password || '');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-check-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      // Any database name goes to the same server: the harness creates a scratch database per run.
      `* = host=${up.hostname} port=${up.port || 5432} user=${user}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      // Not forwarded by PgBouncer; the service sets them at connect time when talking directly.
      'ignore_startup_parameters = extra_float_digits,options,statement_timeout',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: drop to the postgres user, which must read the config.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const [uid, gid] = [id('-u'), id('-g')];
    for (const f of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, f), uid, gid);
    chmodSync(dir, 0o700);
  }
  const bouncer = spawn(PGBOUNCER, ['-q', ...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: 'inherit' });
  cleanups.push(() => bouncer.kill('SIGINT'));
  const url = `postgres://${encodeURIComponent(user)}${password ? ':' + encodeURIComponent(password) : ''}@127.0.0.1:${port}/postgres`;
  for (let i = 0; i < 100 && !(await answers(url)); i++) await new Promise((r) => setTimeout(r, 100));
  console.log(`pgbouncer-check: PgBouncer (transaction pooling) on 127.0.0.1:${port} in front of ${up.hostname}:${up.port || 5432}`);

  const mocha = spawn(
    join(root, 'node_modules', '.bin', 'mocha'),
    process.argv.slice(2).filter((a) => a !== '--'),
    {
      cwd: root,
      stdio: 'inherit',
      // LISTEN (credential revocations) and the webhook worker need a session: DATABASE_DIRECT_URL.
      env: { ...process.env, DATABASE_URL: url, DATABASE_DIRECT_URL: up.toString(), DB_PREPARED_STATEMENTS: 'off', API_BASE_URL: '' },
    },
  );
  const code = await new Promise((r) => mocha.once('exit', (c) => r(c ?? 1)));
  await cleanup();
  process.exit(code);
}

main().catch(async (err) => {
  console.error('pgbouncer-check:', err.stack ?? err);
  await cleanup();
  process.exit(1);
});
