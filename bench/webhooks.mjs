/**
 * Webhook rows of `npm run bench` (run after bench/run.mjs; alone: `npm run build && node bench/webhooks.mjs`).
 *
 * 1. Delivery throughput: the service (dist/src/server.js, its own delivery worker) pushes
 *    BENCH_WEBHOOK_EVENTS (2000) feed entries (`vendor.updated`, as an API update writes them) to a
 *    local receiver on 127.0.0.1 that verifies every signature with standardwebhooks; events/s from
 *    the first entry committed to the last one accepted. Target >= 200 events/s.
 * 2. POST /jobs/batch (1000 upserts), one request at a time, p50 with no endpoint vs with an
 *    endpoint subscribed to every type (deliveries running meanwhile), alternating in rounds
 *    (BENCH_WEBHOOK_ROUNDS, 5). Target: within 1.10 x.
 * BENCH_QUICK=1 (the CI smoke): 200 entries and 1 round, written to bench/results/webhooks-quick.md.
 * Writes bench/results/webhooks.md. Exits non-zero when a request is refused, an entry is not
 * delivered or a delivery's signature does not verify; timings are reported, never judged here.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { ROOT, createScratch, migrate, provision } from './setup.mjs';

const require = createRequire(import.meta.url);
const { Webhook } = require('standardwebhooks');
const { createDb } = require(join(ROOT, 'dist/src/db/knex.js'));
const { writeTransaction } = require(join(ROOT, 'dist/src/feed/append.js'));

const QUICK = process.env.BENCH_QUICK === '1';
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS || (QUICK ? 200 : 2000));
const ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS || (QUICK ? 1 : 5));
const PER_ROUND = 3;
const RESULTS = join(ROOT, 'bench', 'results');
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s]`, ...a);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let scratch;
let service;
let db;
async function cleanup() {
  if (service && service.exitCode === null) {
    service.kill('SIGTERM');
    await new Promise((r) => {
      service.once('exit', r);
      setTimeout(r, 10_000);
    });
  }
  await db?.destroy().catch(() => undefined);
  await scratch?.close().catch((e) => console.error('cleanup:', e.message));
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().finally(() => process.exit(130)));

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** A receiver that verifies every request and counts the accepted ones per path. */
function startReceiver() {
  const secrets = new Map();
  const counts = new Map();
  let bad = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        new Webhook(secrets.get(req.url)).verify(Buffer.concat(chunks).toString('utf8'), req.headers);
        counts.set(req.url, (counts.get(req.url) ?? 0) + 1);
      } catch {
        bad++;
      }
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, secrets, counts, bad: () => bad, port: server.address().port })));
}

async function main() {
  scratch = await createScratch(log);
  await migrate(scratch.url);
  const [a, b] = await provision(scratch.url);
  const port = await freePort();
  mkdirSync(RESULTS, { recursive: true });
  const out = createWriteStream(join(RESULTS, 'webhooks-service.log'));
  service = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: scratch.url,
      NODE_ENV: 'production',
      PORT: String(port),
      JWT_SECRET: 'bench-' + process.pid,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      // As bench/run.mjs: the limits are counted, never reached (a full run's batches, each of 1000
      // elements, met the default burst: 429, and no summary).
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_HOURLY: '1000000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  service.stdout.pipe(out);
  service.stderr.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(base + '/openapi.json');
      break;
    } catch {
      if (i > 300) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const call = async (org, method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${org.apiKey}`, 'Content-Type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const receiver = await startReceiver();
  db = createDb(scratch.url, 4);

  // 1. throughput: updates of one vendor, each entry carrying the vendor as an API update would
  // (a type the service accepts: an endpoint's `types` must be change types, src/feed/change-types.ts).
  const vendor = await call(a, 'POST', '/vendors', { code: 'BENCH-TICK', name: 'Bench tick vendor' });
  const ep = await call(a, 'POST', '/webhook-endpoints', { url: `http://127.0.0.1:${receiver.port}/throughput`, types: ['vendor.updated'] });
  receiver.secrets.set('/throughput', ep.secret);
  log(`throughput: ${EVENTS} entries to one endpoint`);
  const t0 = process.hrtime.bigint();
  for (let done = 0; done < EVENTS; done += 100) {
    await writeTransaction(db, a.organization.id, async (_trx, changes) => {
      for (let i = done; i < Math.min(done + 100, EVENTS); i++)
        changes.add({ type: 'vendor.updated', resource: 'vendor', id: vendor.id, data: { ...vendor, name: `Bench tick ${i} with a name of a typical size` } });
    });
  }
  while ((receiver.counts.get('/throughput') ?? 0) < EVENTS) {
    if (Number(process.hrtime.bigint() - t0) / 1e9 > 120) {
      // What the service says of the endpoint, and its log's end (the log file is overwritten by the next run).
      const state = await call(a, 'GET', `/webhook-endpoints/${ep.id}`).catch((err) => err.message);
      console.error(`the endpoint: ${JSON.stringify(state)}`);
      console.error(`the service log's end:\n${readFileSync(join(RESULTS, 'webhooks-service.log'), 'utf8').split('\n').slice(-40).join('\n')}`);
      throw new Error(`only ${receiver.counts.get('/throughput') ?? 0} of ${EVENTS} delivered in 120 s`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const eps = EVENTS / seconds;
  log(`  ${eps.toFixed(0)} events/s (${seconds.toFixed(2)} s), ${receiver.bad()} unverified`);
  if (receiver.bad()) throw new Error(`${receiver.bad()} deliveries whose signature did not verify`);

  // 2. batch latency with and without a subscribed endpoint
  const inputs = Array.from({ length: 1000 }, (_, n) => ({
    code: `J-${7001 + n}`,
    name: `Bench upsert job ${7001 + n}`,
    defaultTaxCodeId: null,
    startDate: '2026-03-01T00:00:00.000Z',
    state: n % 10 === 0 ? 'CLOSED' : 'OPEN',
  }));
  const batch = async () => {
    const s = process.hrtime.bigint();
    await call(b, 'POST', '/jobs/batch', { inputs });
    return Number(process.hrtime.bigint() - s) / 1e6;
  };
  const sub = await call(b, 'POST', '/webhook-endpoints', { url: `http://127.0.0.1:${receiver.port}/batch`, enabled: false });
  receiver.secrets.set('/batch', sub.secret);
  for (let i = 0; i < 3; i++) await batch();
  const times = { off: [], on: [] };
  log(`batch latency: ${ROUNDS} rounds x ${PER_ROUND} batches per mode`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? ['on', 'off'] : ['off', 'on']) {
      await call(b, 'PATCH', `/webhook-endpoints/${sub.id}`, { enabled: mode === 'on' });
      for (let i = 0; i < PER_ROUND; i++) times[mode].push(await batch());
    }
  }
  const off = median(times.off);
  const on = median(times.on);
  const ratio = on / off;
  log(`  p50 without ${off.toFixed(1)} ms, with ${on.toFixed(1)} ms (${ratio.toFixed(2)} x); ${receiver.counts.get('/batch') ?? 0} deliveries meanwhile`);

  const md = [
    `# Webhook benchmark${QUICK ? ' (BENCH_QUICK smoke: figures indicative only)' : ''}`,
    '',
    `- date: ${new Date().toISOString()}; ${scratch.embedded ? 'embedded PostgreSQL' : 'DATABASE_URL server'}; the service with its delivery worker (NODE_ENV=production), receiver in the bench process verifying every signature`,
    '',
    '| row | measured | target | ok |',
    '|---|---|---|---|',
    `| webhook delivery throughput, ${EVENTS} entries, one endpoint | ${eps.toFixed(0)} events/s | >= 200 events/s | ${eps >= 200 ? 'yes' : 'NO'} |`,
    `| POST /jobs/batch (1000 upserts) p50, endpoint subscribed vs none (${ROUNDS * PER_ROUND} each) | ${on.toFixed(1)} ms vs ${off.toFixed(1)} ms = ${ratio.toFixed(2)} x | <= 1.10 x | ${ratio <= 1.1 ? 'yes' : 'NO'} |`,
    '',
  ].join('\n');
  // A quick run's figures mean nothing: they never replace the last full run's.
  writeFileSync(join(RESULTS, QUICK ? 'webhooks-quick.md' : 'webhooks.md'), md);
  console.log('\n' + md);
  receiver.server.close();
}

main()
  .then(cleanup)
  .catch(async (err) => {
    console.error(err);
    await cleanup();
    process.exit(1);
  });
