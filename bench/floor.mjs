/**
 * The floor: what the benchmarked requests cost with nothing but node:http, pg and ONE hand-written
 * SQL statement per request that authenticates (API key hash lookup folded in) and builds the
 * whole response body as JSON text in PostgreSQL. Same responses as the service for these
 * requests (bench/run.mjs checks), no validation, no routing library; statements are prepared per
 * connection. `POST /jobs/batch?feed=1` is the batch that also writes a feed: the same upsert plus
 * one row per changed job in the floor's own `floor_feed` (created at start), in the same statement.
 *
 * Env: DATABASE_URL, PORT, DB_POOL_MAX (default 10, as the service).
 */
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { FLOOR_FEED_SETUP, ITEMS, JOB, JOBS_BATCH, JOBS_BATCH_FEED, ORDERS, RELEASES } from './floor-sql.mjs';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX || 10), application_name: 'bench-floor' });

const names = new Map();
const statementName = (sql) => names.get(sql) ?? (names.set(sql, `floor_${names.size + 1}`), names.get(sql));

const PROBLEM = (status, title, detail) => JSON.stringify({ type: 'about:blank', title, status, detail });

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const int = (v, fallback) => (v === null || v === '' || !/^\d+$/.test(v) ? fallback : Number(v));

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

async function route(req) {
  const url = new URL(req.url, 'http://floor');
  const q = url.searchParams;
  const p = url.pathname;
  if (req.method === 'GET' && p === '/items') {
    const offset = int(q.get('offset'), 0);
    const job = q.get('filter[jobId]');
    const sql = job ? (offset ? ITEMS.deepOfJob : ITEMS.firstOfJob) : offset ? ITEMS.deep : ITEMS.first;
    return [sql, [Math.min(int(q.get('limit'), 500), 2500), offset, ...(job ? [job] : [])]];
  }
  if (req.method === 'GET' && p === '/orders') return [ORDERS, [Math.min(int(q.get('limit'), 100), 1000), int(q.get('offset'), 0)]];
  if (req.method === 'GET' && p === '/releases') return [RELEASES, [Math.min(int(q.get('limit'), 100), 500), int(q.get('offset'), 0)]];
  if (req.method === 'GET' && p.startsWith('/jobs/') && p.indexOf('/', 6) < 0) return [JOB, [decodeURIComponent(p.slice(6))]];
  if (req.method === 'POST' && p === '/jobs/batch')
    return [q.get('feed') === '1' ? JOBS_BATCH_FEED : JOBS_BATCH, [JSON.stringify(JSON.parse(await readBody(req)).inputs)]];
  return undefined;
}

const server = createServer(async (req, res) => {
  try {
    const found = await route(req);
    if (!found) return send(res, 404, PROBLEM(404, 'Not Found', `No route ${req.method} ${req.url}`));
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const hash = createHash('sha256')
      .update(m ? m[1] : '')
      .digest('hex');
    const [sql, params] = found;
    // Named: prepared once per connection, like any tuned hand-written data access.
    const { rows } = await pool.query({ name: statementName(sql), text: sql, values: [hash, ...params] });
    if (!rows[0].ok) return send(res, 401, PROBLEM(401, 'Unauthorized', 'The API key is invalid or has been revoked.'));
    if (rows[0].json === null) return send(res, 404, PROBLEM(404, 'Not Found', `No job matches ${params[0]}.`));
    send(res, 200, rows[0].json);
  } catch (err) {
    send(res, 500, PROBLEM(500, 'Internal Server Error', String(err?.message ?? err)));
  }
});

// The feed the batch writes with ?feed=1: the floor's own table, made before the first request.
await pool.query(FLOOR_FEED_SETUP);
server.listen(Number(process.env.PORT || 3100), '127.0.0.1', () => console.log(`floor listening on ${process.env.PORT || 3100}`));
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
