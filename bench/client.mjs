/**
 * The client kit's rows of `npm run bench` (client/, README "The client kit"), against the service
 * on its own generated data, one request at a time:
 * - follower: a FeedFollower with an empty handler (memory cursor) against raw `GET /changes?limit=1000`
 *   pages, entries per second over the same feed (target: at least 80 % of raw);
 * - reconcile: `reconcile()` of the big organization's items (about 190,000) with one digest changed:
 *   requests and time (target: at most 8 requests and 2 s), and that it finds exactly that item;
 * - single read: `client.GET('/jobs/{jobIdOrCode}')` against a bare `fetch` of the same URL, p50
 *   (target: at most 5 % over).
 *
 * Env: BENCH_ITEMS (200000), BENCH_CLIENT_FEED (feed entries to write, 20000), BENCH_CLIENT_READS
 * (single reads per side and round, 2000), BENCH_ROUNDS (3), BENCH_QUICK=1 (5,000 items, 2,000
 * entries, 300 reads, 1 round: a smoke run), DATABASE_URL (a scratch database on that server).
 * Writes bench/results/client.md (client-quick.md with BENCH_QUICK=1, git-ignored). Needs `npm run build` (npm run bench runs it).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, backfillStates, createScratch, generate, migrate, provision } from './setup.mjs';

const { freePort } = createRequire(import.meta.url)(join(ROOT, 'dist', 'src', 'free-port.js'));
const kit = await import(join(ROOT, 'dist', 'client', 'src', 'index.mjs'));

const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const ITEMS = Number(env.BENCH_ITEMS || (QUICK ? 5000 : 200000));
const FEED = Number(env.BENCH_CLIENT_FEED || (QUICK ? 2000 : 20000));
const READS = Number(env.BENCH_CLIENT_READS || (QUICK ? 300 : 2000));
const ROUNDS = Number(env.BENCH_ROUNDS || (QUICK ? 1 : 3));
const RESULTS = join(ROOT, 'bench', 'results');
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s]`, ...a);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let scratch;
let server;
async function cleanup() {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  await scratch?.close().catch((e) => console.error('cleanup:', e.message));
}

async function startService(url) {
  const port = await freePort();
  mkdirSync(RESULTS, { recursive: true });
  const out = openSync(join(RESULTS, 'client-service.log'), 'w');
  server = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: ROOT,
    env: {
      ...env,
      DATABASE_URL: url,
      PORT: String(port),
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-' + process.pid,
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_HOURLY: '1000000000',
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error('the service exited; see bench/results/client-service.log');
    try {
      await fetch(base + '/readyz');
      return base;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the service did not start in 60 s');
}

/** Entries per second of reading the whole feed after `start` with raw pages of 1000. */
async function rawFeed(base, key, start) {
  const t0 = performance.now();
  let after = start;
  let entries = 0;
  for (;;) {
    const res = await fetch(`${base}/changes?limit=1000&after=${encodeURIComponent(after)}`, { headers: { Authorization: `Bearer ${key}` } });
    const page = await res.json();
    entries += page.data.length;
    after = page.nextCursor;
    if (!page.hasMore) break;
  }
  return { entries, perSecond: entries / ((performance.now() - t0) / 1000) };
}

/** The same with a FeedFollower (empty handler, memory cursor), catchUp() from `start`. */
async function followerFeed(client, start) {
  let entries = 0;
  const follower = new kit.FeedFollower({ client, cursorStore: kit.memoryCursorStore(start), handle: () => void (entries += 1) });
  const t0 = performance.now();
  await follower.catchUp();
  return { entries, perSecond: entries / ((performance.now() - t0) / 1000) };
}

async function main() {
  log(`dataset: ${ITEMS} items, ${FEED} feed entries, ${READS} single reads x ${ROUNDS} rounds${QUICK ? ' (quick)' : ''}`);
  scratch = await createScratch(log);
  await migrate(scratch.url);
  const orgs = await provision(scratch.url);
  const data = await generate(scratch.url, { items: ITEMS, orders: Math.max(20, Math.round(ITEMS / 10)), bigJobItems: Math.min(6000, ITEMS / 4) }, orgs, log);
  await backfillStates(scratch.url, orgs, log);
  const base = await startService(scratch.url);
  const key = orgs[0].apiKey;
  const client = kit.createClient({ baseUrl: base, apiKey: key });
  const rows = [];

  // Feed entries: job upserts of 1000 (each renames every job, so each gives 1000 entries).
  const start = (await client.GET('/changes', { params: { query: { after: 'now' } } })).data.nextCursor;
  const inputs = Array.from({ length: 1000 }, (_, i) => ({ code: `BENCH-${String(i).padStart(4, '0')}`, name: 'Bench job' }));
  for (let v = 0; v * 1000 < FEED; v++) {
    const { response } = await client.POST('/jobs/batch', { body: { inputs: inputs.map((i) => ({ ...i, name: `${i.name} v${v}` })) } });
    if (response.status !== 200) throw new Error(`POST /jobs/batch: ${response.status}`);
  }
  const raw = [];
  const followed = [];
  for (let r = 0; r < ROUNDS; r++) {
    raw.push(await rawFeed(base, key, start));
    followed.push(await followerFeed(client, start));
  }
  const rawRate = median(raw.map((x) => x.perSecond));
  const followRate = median(followed.map((x) => x.perSecond));
  rows.push(['raw GET /changes?limit=1000 pages', `${raw[0].entries} entries`, `${rawRate.toFixed(0)} entries/s`, '']);
  rows.push([
    'FeedFollower, empty handler',
    `${followed[0].entries} entries`,
    `${followRate.toFixed(0)} entries/s (${((followRate / rawRate) * 100).toFixed(0)} % of raw)`,
    followRate >= 0.8 * rawRate ? 'pass' : '**FAIL**',
  ]);

  // Reconcile: the local copy as `{ id, digest }` pairs from the service's own states, one digest changed.
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  const local = (await db.query(`SELECT id::text AS id, digest FROM feed_objects WHERE organization_id = $1 AND resource = 'item'`, [orgs[0].organization.id]))
    .rows;
  await db.end();
  const changed = local[Math.floor(local.length / 2)];
  changed.digest = '0'.repeat(64);
  const times = [];
  let result;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    result = await kit.reconcile({ client, resource: 'item', local });
    times.push(performance.now() - t0);
  }
  const found = result.different.length === 1 && result.different[0] === changed.id && result.missing.length + result.extra.length === 0;
  const reconcileMs = median(times);
  rows.push([
    `reconcile(), ${local.length} items, one different`,
    `${result.requests} requests${found ? '' : ' (**did not find the item**)'}`,
    `${reconcileMs.toFixed(0)} ms`,
    found && result.requests <= 8 && reconcileMs <= 2000 ? 'pass' : '**FAIL**',
  ]);

  // Single read: the kit's GET against a bare fetch of the same URL, alternating, p50 of each.
  const code = data.bigJob?.code ?? 'J-1001';
  const url = `${base}/jobs/${encodeURIComponent(code)}`;
  const bare = [];
  const viaKit = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < READS; i++) {
      let t0 = performance.now();
      const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
      await res.json();
      bare.push(performance.now() - t0);
      t0 = performance.now();
      const { response } = await client.GET('/jobs/{jobIdOrCode}', { params: { path: { jobIdOrCode: code } } });
      if (response.status !== 200) throw new Error(`GET /jobs/${code}: ${response.status}`);
      viaKit.push(performance.now() - t0);
    }
  }
  const [bareP50, kitP50] = [median(bare), median(viaKit)];
  rows.push([`GET /jobs/${code}: bare fetch`, `${bare.length} reads`, `p50 ${bareP50.toFixed(3)} ms`, '']);
  rows.push([
    `GET /jobs/${code}: the kit's client.GET`,
    `${viaKit.length} reads`,
    `p50 ${kitP50.toFixed(3)} ms (${(((kitP50 - bareP50) / bareP50) * 100).toFixed(1)} % over bare)`,
    kitP50 <= bareP50 * 1.05 ? 'pass' : '**FAIL**',
  ]);

  const md = [
    '# The client kit against the service',
    '',
    `- ${new Date().toISOString()}, Node ${process.version}, ${ITEMS} items generated, ${ROUNDS} round(s), medians${QUICK ? '; QUICK smoke mode: numbers are indicative only' : ''}`,
    '',
    '| row | size | result | target |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n');
  writeFileSync(join(RESULTS, QUICK ? 'client-quick.md' : 'client.md'), md);
  console.log(md);
}

main()
  .then(cleanup, async (err) => {
    console.error(err);
    await cleanup();
    process.exitCode = 1;
  })
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
