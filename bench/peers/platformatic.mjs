/**
 * Platformatic DB as a benchmark peer (BENCH_PEERS=platformatic): its auto-generated REST API on
 * the benchmark's database, with the same pool size. Installed on first use into
 * .data/bench-peers/platformatic (git-ignored), outside the project's dependencies.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The version the issue measured (the 3.x line needs node 22).
const VERSION = '2.61.0';

export const name = 'platformatic';
export const title = `Platformatic DB ${VERSION}`;

/** What its answers leave out that the service's include: printed with the results. */
export const note =
  `${title} answers the same pages (organization filter, createdAt DESC, id DESC, totalCount=true: an exact X-Total-Count) ` +
  'from one table: it does not exclude items of deleted orders or invoices, looks up no codes (itemCode, phase, cost category, ' +
  'tax, gl, cost type), and does no authentication (it returns the item tables as they are, the copied parent columns included).';

/** Installs the peer when missing; returns its folder. */
export function install(root, log) {
  const dir = join(root, '.data', 'bench-peers', 'platformatic');
  const installed = join(dir, 'node_modules', '@platformatic', 'db', 'package.json');
  if (existsSync(installed) && JSON.parse(readFileSync(installed, 'utf8')).version === VERSION) return dir;
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json')))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-peer-platformatic', private: true }, null, 2) + '\n');
  log(`installing @platformatic/db@${VERSION} into ${dir} (once; takes a few minutes)`);
  execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `@platformatic/db@${VERSION}`], { stdio: 'inherit' });
  return dir;
}

/**
 * Writes its configuration for this run; returns the node arguments that start it on `port`. It
 * maps the whole schema: limited to the item tables (`include`), it fails on their references.
 */
export function command(dir, { url, pool, port }) {
  const config = join(dir, `platformatic-${process.pid}.json`);
  writeFileSync(
    config,
    JSON.stringify(
      {
        server: { hostname: '127.0.0.1', port, logger: { level: 'warn' } },
        db: {
          connectionString: url,
          poolSize: pool,
          graphql: false,
          openapi: true,
          autoTimestamp: false,
          limit: { default: 10, max: 2500 },
        },
        watch: false,
      },
      null,
      2,
    ),
  );
  return { args: [join(dir, 'node_modules', '@platformatic', 'db', 'db.mjs'), 'start', '-c', config], cwd: dir, config };
}

// The organization filter is written as a one-term `where.or`: Platformatic reads any parameter
// starting with `where.or` as an OR list, so `where.organizationId.eq=` fails (Unknown field).
const pageQuery = (organizationId, limit) =>
  `limit=${limit}&where.or=${encodeURIComponent(`(organizationId.eq=${organizationId})`)}&orderby.createdAt=desc&orderby.id=desc&totalCount=true`;

/** The job the single-read row reads (bench/run.mjs: `GET /jobs/J-1002`). */
const JOB_CODE = 'J-1002';

/** The peer's request for a benchmark row, or undefined when it has none. */
export function request(id, organizationId) {
  // The 500-item page at 10 and at 32 connections (the row says how many).
  if (id === 'items500' || id === 'items500c32') return `/items?${pageQuery(organizationId, 500)}`;
  if (id === 'invoiceItems500') return `/invoiceItems?${pageQuery(organizationId, 500)}`;
  // The single read by code: the jobs table's key is (organization id, id), so Platformatic's read by
  // primary key is not the service's read by code; its list filtered on the organization and the
  // code is the same index lookup. One job row, as it is stored (no groups).
  if (id === 'job' || id === 'job32') return `/jobs?limit=1&where.code.eq=${JOB_CODE}&where.or=${encodeURIComponent(`(organizationId.eq=${organizationId})`)}`;
  return undefined;
}

/**
 * Problems with the peer's answer to a row, given the service's: for a page as many rows, and an
 * exact total (which counts what it does not exclude); for the single read, the same job.
 */
export function check(service, peer) {
  if (!Array.isArray(service.body?.data)) {
    const job = Array.isArray(peer.body) ? peer.body[0] : undefined;
    return peer.body?.length === 1 && job.id === service.body?.id && job.code === service.body?.code
      ? []
      : [`not the job: ${JSON.stringify(peer.body).slice(0, 200)}`];
  }
  if (!Array.isArray(peer.body)) return [`not a list: ${JSON.stringify(peer.body).slice(0, 200)}`];
  if (peer.body.length !== service.body?.data?.length) return [`${peer.body.length} rows, the service ${service.body?.data?.length}`];
  if (!(Number(peer.totalHeader) >= service.body.meta.total)) return [`X-Total-Count ${peer.totalHeader}, the service's meta.total ${service.body.meta.total}`];
  return [];
}
