/**
 * The benchmark's scratch database: its own embedded PostgreSQL cluster in .data/bench-<pid>, or a
 * scratch database on DATABASE_URL's server; migrated with the project's migrations, filled with
 * the generated dataset, removed at the end.
 */
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { invoiceStatements, orgScale, organizationStatements } from './dataset.mjs';

const require = createRequire(import.meta.url);
export const ROOT = new URL('..', import.meta.url).pathname;
const dist = (p) => require(join(ROOT, 'dist', p));

export async function createScratch(log) {
  const { startEmbedded, ensureDatabase, dropDatabase } = dist('src/db/embedded.js');
  const name = `bench_${process.pid}`;
  if (process.env.DATABASE_URL) {
    const adminUrl = process.env.DATABASE_URL;
    const url = await ensureDatabase(adminUrl, name);
    log(`scratch database ${name} on DATABASE_URL`);
    return { url, embedded: false, close: () => dropDatabase(adminUrl, name) };
  }
  const dir = join(ROOT, '.data', `bench-${process.pid}`);
  const server = await startEmbedded(dir);
  const url = await ensureDatabase(server.adminUrl, name);
  log(`embedded PostgreSQL in ${dir}`);
  return {
    url,
    embedded: true,
    close: async () => {
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function migrate(url) {
  const { createDb, migrateLatest } = dist('src/db/knex.js');
  const db = createDb(url, 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

/** Two organizations provisioned through the admin code path (credentials as users get them). */
export async function provision(url) {
  const { createDb } = dist('src/db/knex.js');
  const { createOrganization } = dist('src/admin/provision.js');
  const db = createDb(url, 2);
  try {
    const big = await createOrganization(db, { name: 'Granite Peak Builders', adminEmail: 'lena.ortiz@granitepeak.example' });
    const small = await createOrganization(db, { name: 'Delta Ridge Constructors', adminEmail: 'sam.nguyen@deltaridge.example' });
    return [big, small];
  } finally {
    await db.destroy();
  }
}

/**
 * Fills both organizations (95 % / 5 % of the rows; with `invoices`, also invoices) and analyzes. Returns the row counts and the
 * big organization's job with ~6,000 items.
 */
export async function generate(url, { items, orders, bigJobItems, invoices = false }, orgs, log) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off');
    // A benchmark dataset, not changes: no feed entries (migration 20261206000000); backfillStates gives its digests.
    await client.query('SET procurement.capturing = off');
    const shares = [0.95, 0.05];
    for (const [n, org] of orgs.entries()) {
      const scale = orgScale(Math.round(items * shares[n]), Math.max(1, Math.round(orders * shares[n])), bigJobItems);
      const t0 = Date.now();
      for (const sql of [...organizationStatements(scale), ...(invoices ? invoiceStatements() : [])]) {
        const params = sql.includes('$2') ? [org.organization.id, org.user.id] : [org.organization.id];
        await client.query(sql, params);
      }
      log(`  ${org.organization.name}: ${scale.orders} orders, ${scale.jobs} jobs, ${scale.vendors} vendors in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    const t0 = Date.now();
    await client.query('VACUUM ANALYZE');
    log(`  VACUUM ANALYZE in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const counts = {};
    for (const table of [
      'organizations',
      'jobs',
      'vendors',
      'phases',
      'cost_categories',
      'tax_codes',
      'orders',
      'items',
      'releases',
      'release_items',
      ...(invoices ? ['invoices', 'invoice_items'] : []),
    ]) {
      counts[table] = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    }
    const bigJob = (
      await client.query(
        `SELECT j.id, j.code, count(*)::int AS items FROM jobs j JOIN orders o ON o.organization_id = j.organization_id AND o.job_id = j.id AND o.deleted_at IS NULL
           JOIN items i ON i.organization_id = o.organization_id AND i.order_id = o.id
         WHERE j.organization_id = $1 AND j.code = 'J-1001' GROUP BY j.id, j.code`,
        [orgs[0].organization.id],
      )
    ).rows[0];
    const pgVersion = (await client.query('SHOW server_version')).rows[0].server_version;
    const bigOrgItems = Number((await client.query('SELECT count(*) AS n FROM items WHERE organization_id = $1', [orgs[0].organization.id])).rows[0].n);
    return { counts, bigJob, pgVersion, bigOrgItems };
  } finally {
    await client.end();
  }
}

/**
 * The loader wrote without the feed: backfills every object's state (reconciliation digests) the
 * way any bulk loader must (requestBackfill, then the backfill the worker would run).
 */
export async function backfillStates(url, orgs, log) {
  const { createDb } = dist('src/db/knex.js');
  const { requestBackfill, runPendingBackfills } = dist('src/resources/reconciliation/backfill.js');
  // The reconciled resources, as the service gathers them from their declarations.
  const { RECONCILED } = dist('src/resources/index.js');
  const db = createDb(url, 2);
  try {
    const t0 = Date.now();
    for (const org of orgs) await requestBackfill(db, org.organization.id);
    await runPendingBackfills(RECONCILED, db);
    await db.raw('VACUUM ANALYZE feed_objects');
    log(`  object states backfilled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await db.destroy();
  }
}
