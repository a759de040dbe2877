// `npm run proxy-check`: the whole black-box suite through `prism proxy generated/openapi.yaml
// <server> --errors`, so every request the tests send and every response the real server gives is
// checked against the contract by a validator that is not ours (issue 6).
//
//   scratch database (embedded PostgreSQL, or a scratch database on DATABASE_URL's server)
//   -> the real service (dist/src/server.js, NODE_ENV=test: it validates its own responses too)
//   -> prism proxy --errors in front of it
//   -> mocha with API_BASE_URL=<prism> and DATABASE_URL=<the scratch database>
//
// Fails when mocha fails or when Prism logs any violation (request or response). Prints a summary:
// operations seen through the proxy (with their statuses), violations, and the tests skipped under
// the proxy with their reasons (test/support/proxy.ts). Needs a build (`tsc -p .`), which the npm
// script does first. Options: --keep-log keeps Prism's log in .data/proxy-check-prism.log;
// --no-skip runs the direct-only tests through Prism too (to check that each still needs its skip:
// every one of them should fail); any other argument goes to mocha (`npm run proxy-check -- --grep items`).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { READINESS_PATH, readPrismLog, stripAnsi } from './prism-log.mjs';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const dist = (p) => join(root, 'dist', p);
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dataDir = process.env.DATA_DIR || join(root, '.data');

// The service runs as `node scripts/proxy-check.mjs --service`, which loads dist/src/server.js: a
// command line that does not name server.js, so stopping a developer's server by name (`pkill -f
// dist/src/server.js`) on a shared machine does not take the check's service down mid-run.
const SERVICE = process.argv[2] === '--service';
const OWN_OPTIONS = ['--keep-log', '--no-skip'];
const argv = process.argv.slice(2).filter((a) => a !== '--');
const keepLog = argv.includes('--keep-log');
const noSkip = argv.includes('--no-skip');
const mochaArgs = argv.filter((a) => !OWN_OPTIONS.includes(a));

for (const file of ['src/server.js', 'src/db/embedded.js', 'test/support/hooks.js']) {
  if (!existsSync(dist(file))) {
    console.error(`proxy-check: dist/${file} is missing; build first (tsc -p .), or use \`npm run proxy-check\`.`);
    process.exit(2);
  }
}
const { startEmbedded, ensureDatabase, dropDatabase, removeStaleClusters } = require(dist('src/db/embedded.js'));
const { createDb, migrateLatest } = require(dist('src/db/knex.js'));
const { freePort } = require(dist('src/free-port.js'));

// ---------------------------------------------------------------------------------------------
// Cleanup: every child process and the scratch database, on exit and on signals.

const cleanups = [];
const children = new Set();
let cleaning;

function cleanup() {
  stoppingAll = true;
  cleaning ??= (async () => {
    for (const child of [...children].reverse()) await stopChild(child);
    for (const fn of cleanups.splice(0).reverse()) await fn().catch((err) => console.error('proxy-check cleanup:', err.message ?? err));
  })();
  return cleaning;
}

for (const [signal, code] of SERVICE
  ? []
  : [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ]) {
  process.on(signal, () => {
    console.error(`\nproxy-check: ${signal}, cleaning up`);
    cleanup().finally(() => process.exit(code));
  });
}

/** Each child leads its own process group (detached), so stopping it stops what it started too. */
function stopChild(child) {
  child.stopping = true;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      clearTimeout(timer);
      done();
    }
  });
}

/** A child that ends before we stop it (crash, or killed from outside) fails the run. */
const lostChildren = [];
let stoppingAll = false;

function start(name, command, args, env, onOutput) {
  const child = spawn(command, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (!stoppingAll && !child.stopping && name !== 'mocha') lostChildren.push(`${name} ended during the run (${signal ?? `exit code ${code}`})`);
  });
  child.stdout.on('data', (d) => onOutput(d.toString()));
  child.stderr.on('data', (d) => onOutput(d.toString()));
  child.name = name;
  return child;
}

async function waitFor(name, child, url, timeoutMs, log) {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${name} ${child.signalCode ? `was killed by ${child.signalCode}` : `exited with ${child.exitCode}`} before answering:\n${log().slice(-3000)}`,
      );
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return (Date.now() - started) / 1000;
    } catch (err) {
      if (Date.now() - started > timeoutMs)
        throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s (${err.cause?.message ?? err.message}):\n${log().slice(-3000)}`, {
          cause: err,
        });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function scratchDatabase() {
  const configured = process.env.DATABASE_URL;
  if (configured) {
    const name = `procurement_proxy_${process.pid}_${randomBytes(3).toString('hex')}`;
    const url = await ensureDatabase(configured, name).catch((err) => {
      throw new Error(`cannot create a scratch database on DATABASE_URL's server (CREATEDB needed): ${err.message}`);
    });
    cleanups.push(() => dropDatabase(configured, name));
    return { url, where: `scratch database ${name} on DATABASE_URL's server` };
  }
  removeStaleClusters(dataDir, 'proxy');
  const dir = join(dataDir, `proxy-${process.pid}`);
  const server = await startEmbedded(dir);
  cleanups.push(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: await ensureDatabase(server.adminUrl, 'procurement_proxy'), where: `embedded PostgreSQL in ${dir}` };
}

function summarize({ ops, seen, violations, requests, unfinished }, mocha, skipped) {
  const withSuccess = [...seen.values()].filter((s) => [...s].some((x) => x < 400)).length;
  const withError = [...seen.values()].filter((s) => [...s].some((x) => x >= 400)).length;
  const never = [...seen].filter(([, s]) => s.size === 0).map(([id]) => id);

  console.log('\n== proxy-check summary');
  console.log(`Requests through Prism: ${requests}${unfinished ? ` (${unfinished} without an answer in Prism's log)` : ''}`);
  console.log(
    `Operations seen: ${ops.length - never.length}/${ops.length} answered by the service through Prism (${withSuccess} with a success status, ${withError} with an error status)`,
  );
  if (never.length) console.log(`  never seen: ${never.join(', ')}`);
  const noError = [...seen].filter(([, s]) => s.size > 0 && ![...s].some((x) => x >= 400)).map(([id]) => id);
  const noSuccess = [...seen].filter(([, s]) => s.size > 0 && ![...s].some((x) => x < 400)).map(([id]) => id);
  if (noSuccess.length) console.log(`  no success status through Prism: ${noSuccess.join(', ')}`);
  if (noError.length) console.log(`  no error status through Prism (their error tests send requests Prism rejects itself): ${noError.join(', ')}`);
  console.log(`Violations (request or response): ${violations.length}`);
  for (const v of violations.slice(0, 50)) console.log(`  ${v}`);
  if (violations.length > 50) console.log(`  ... and ${violations.length - 50} more (--keep-log keeps Prism's whole log)`);
  const reasons = new Map();
  for (const s of skipped) reasons.set(s.reason, [...(reasons.get(s.reason) ?? []), s]);
  const total = (list) => list.reduce((n, s) => n + (s.tests ?? 1), 0);
  console.log(`Tests: ${mocha.passing} passing, ${mocha.pending} skipped, ${mocha.failing} failing`);
  console.log(`Skipped under the proxy (test/support/proxy.ts), by reason: ${total(skipped)}`);
  for (const [reason, tests] of reasons) {
    console.log(`  - ${reason} (${total(tests)})`);
    for (const t of tests) console.log(`      ${t.test}`);
  }
  if (mocha.pending > total(skipped)) console.log(`  (${mocha.pending - total(skipped)} more skipped by this.skip() elsewhere: see the test output)`);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const begun = Date.now();
  const db = await scratchDatabase();
  const migrator = createDb(db.url, 2);
  try {
    await migrateLatest(migrator);
  } finally {
    await migrator.destroy();
  }
  console.log(`== scratch database: ${db.where} (migrated)`);

  const jwtSecret = 'proxy-check-' + randomBytes(16).toString('hex');
  const serverPort = await freePort();
  let serverLog = '';
  const baseEnv = { ...process.env };
  for (const k of ['API_BASE_URL', 'SMTP_URL', 'LOG_LEVEL', 'COVERAGE_STRICT', 'PORT']) delete baseEnv[k];
  const server = start(
    'the service',
    process.execPath,
    [join(root, 'scripts', 'proxy-check.mjs'), '--service'],
    // The suites' many requests per organization must not be throttled (as test/support/harness.ts).
    {
      RATE_LIMIT_BURST: '100000',
      RATE_LIMIT_HOURLY: '10000000',
      ...baseEnv,
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      JWT_SECRET: jwtSecret,
      PORT: String(serverPort),
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    },
    (s) => (serverLog += s),
  );
  const upstream = `http://127.0.0.1:${serverPort}`;
  await waitFor('the service', server, upstream + '/openapi.json', 60_000, () => serverLog);
  console.log(`== service (NODE_ENV=test) on ${upstream}`);

  const prismPort = await freePort();
  let prismLog = '';
  const prism = start(
    'prism proxy',
    bin('prism'),
    ['proxy', join(root, 'generated', 'openapi.yaml'), upstream, '--errors', '--port', String(prismPort), '--host', '127.0.0.1'],
    baseEnv,
    (s) => (prismLog += s),
  );
  const proxied = `http://127.0.0.1:${prismPort}`;
  const prismStart = await waitFor('prism proxy', prism, proxied + READINESS_PATH, 90_000, () => prismLog);
  console.log(`== prism proxy --errors on ${proxied} (ready in ${prismStart.toFixed(1)} s)`);

  const skipLog = join(dataDir, `proxy-check-skipped-${process.pid}.jsonl`);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(skipLog, '');
  cleanups.push(async () => rmSync(skipLog, { force: true }));

  let mochaOut = '';
  const mocha = start(
    'mocha',
    bin('mocha'),
    ['--reporter', 'spec', ...mochaArgs],
    {
      ...baseEnv,
      API_BASE_URL: proxied,
      DATABASE_URL: db.url,
      JWT_SECRET: jwtSecret,
      API_VIA_PRISM: '1',
      PROXY_CHECK_SKIP_LOG: skipLog,
      ...(noSkip ? { PROXY_CHECK_NO_SKIP: '1' } : {}),
      FORCE_COLOR: '0',
    },
    (s) => {
      mochaOut += s;
      process.stdout.write(s);
    },
  );
  const mochaCode = await new Promise((done) => mocha.once('exit', (code, signal) => done(code ?? (signal ? 1 : 0))));
  const count = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(mochaOut)?.[1] ?? 0);

  // Prism logs asynchronously: let it finish writing before stopping it.
  for (let quiet = 0, seen = prismLog.length, waited = 0; quiet < 5 && waited < 100; waited++) {
    await new Promise((r) => setTimeout(r, 100));
    quiet = prismLog.length === seen ? quiet + 1 : 0;
    seen = prismLog.length;
  }
  await stopChild(prism);
  await stopChild(server);
  if (keepLog) {
    writeFileSync(join(dataDir, 'proxy-check-prism.log'), stripAnsi(prismLog));
    console.log(`Prism's log: ${join(dataDir, 'proxy-check-prism.log')}`);
  }
  const skipped = readFileSync(skipLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const traffic = readPrismLog(prismLog, JSON.parse(readFileSync(join(root, 'generated', 'openapi.json'), 'utf8')));
  summarize(traffic, { passing: count('passing'), pending: count('pending'), failing: count('failing') }, skipped);
  const violations = traffic.violations.length;
  if (/response-contract-violation/.test(serverLog)) console.log('The service reported response contract violations of its own (see above).');
  console.log(`Took ${((Date.now() - begun) / 1000).toFixed(0)} s.`);

  if (lostChildren.length) {
    console.log(lostChildren.join('\n'));
    console.log(`The service's last output:\n${serverLog.slice(-2000)}`);
  }
  const failed = mochaCode !== 0 || violations > 0 || lostChildren.length > 0;
  const why = [mochaCode !== 0 && `mocha exited with ${mochaCode}`, violations > 0 && `${violations} violation(s)`, ...lostChildren];
  if (failed) console.log(`proxy-check FAILED: ${why.filter(Boolean).join(', ')}`);
  else console.log('proxy-check passed: the suite passes through prism proxy --errors with zero violations.');
  return failed ? 1 : 0;
}

if (SERVICE) {
  require(dist('src/server.js'));
} else {
  let code = 1;
  try {
    code = await main();
  } catch (err) {
    console.error('proxy-check:', err instanceof Error ? err.message : err);
  } finally {
    await cleanup();
  }
  process.exit(code);
}
