import type { Knex } from 'knex';
import { CAPTURED_TABLES } from './20261206000000_feed_captures';

/**
 * Change capture, continued (issue #42; the queue and the main tables' triggers are migration
 * 20261206000000): a change made in the database to a table that is part of other objects' reads
 * without being their main table queues those objects, and a TRUNCATE queues a re-check.
 *
 * OWNERS: per table, the resources whose reads show its rows, each with the query naming the
 * objects a set of its rows (`r`) is part of. The capture task re-reads each queued object and
 * compares it with its state (src/resources/reconciliation/captures.ts): only a changed read
 * becomes an entry (the no-op rule), so queuing an object whose read did not change costs a read
 * and nothing else.
 * - Child and link tables: an object's attachments (and their files), a job's groups, a
 *   location's jobs, a release's items, a vendor's type, the codes an item, invoice item or order
 *   shows, an organization's header field name on its orders.
 * - Other resources' main tables, where the API emits entries of the objects that show them
 *   (src/resources/{vendors,jobs,locations}/declarations.ts): locations list their jobs and
 *   vendors, vendors embed their location. A change by SQL gets the same entries. The pairs where
 *   the API emits none (a tax code's items, src/feed/object-states.ts SHOWN_IN) are not here: the
 *   feed's append owes those objects a rebuild of their states, for captured entries as for the
 *   API's.
 * test/unit/feed-capture-tables.test.ts holds this list equal to the tables the reads join.
 *
 * The triggers are named `feed_capture_via_*` so that, on a main table, they fire after its own
 * `feed_capture_*` trigger (PostgreSQL fires a table's triggers in name order): the changed
 * object is queued, and entered, before the objects that show it. Their WHEN skips the API's
 * write transactions as the main tables' do (no queue row, no plpgsql call).
 *
 * TRUNCATE fires no row triggers and its statement trigger sees no rows: it queues every object
 * of the table's resources the feed holds a state of (feed_objects), in every organization. The
 * task then enters `deleted` for each one gone and `updated` for each one whose read changed
 * (a TRUNCATE of a child table), and nothing for the others.
 */
type Owners = { resource: string; owners: (r: string) => string; update?: string };

export const OWNERS: Record<string, Owners[]> = {
  job_groups: [{ resource: 'job', owners: (r) => `SELECT organization_id, job_id FROM ${r} r` }],
  job_locations: [{ resource: 'location', owners: (r) => `SELECT organization_id, location_id FROM ${r} r` }],
  order_attachments: [{ resource: 'order', owners: (r) => `SELECT organization_id, order_id FROM ${r} r` }],
  invoice_attachments: [{ resource: 'invoice', owners: (r) => `SELECT organization_id, invoice_id FROM ${r} r` }],
  delivery_receipt_attachments: [{ resource: 'delivery_receipt', owners: (r) => `SELECT organization_id, delivery_receipt_id FROM ${r} r` }],
  files: [
    { resource: 'order', owners: (r) => attachedTo('order_attachments', 'order_id', r) },
    { resource: 'invoice', owners: (r) => attachedTo('invoice_attachments', 'invoice_id', r) },
    { resource: 'delivery_receipt', owners: (r) => attachedTo('delivery_receipt_attachments', 'delivery_receipt_id', r) },
  ],
  release_items: [{ resource: 'release', owners: (r) => `SELECT organization_id, release_id FROM ${r} r` }],
  vendor_types: [{ resource: 'vendor', owners: (r) => referring('vendors', 'vendor_type_id', r) }],
  gl_codes: [
    { resource: 'item', owners: (r) => referring('items', 'gl_code_id', r) },
    { resource: 'invoice_item', owners: (r) => referring('invoice_items', 'gl_code_id', r) },
    { resource: 'order', owners: (r) => referring('orders', 'gl_code_id', r) },
  ],
  cost_types: [
    { resource: 'item', owners: (r) => referring('items', 'cost_type_id', r) },
    { resource: 'invoice_item', owners: (r) => referring('invoice_items', 'cost_type_id', r) },
  ],
  item_codes: [
    { resource: 'item', owners: (r) => referring('items', 'item_code_id', r) },
    { resource: 'invoice_item', owners: (r) => referring('invoice_items', 'item_code_id', r) },
  ],
  // Orders show their organization's header field name only; an organization's other columns
  // (and its creation, or its deletion, which cascades) change no order's read.
  organizations: [
    {
      resource: 'order',
      owners: () => 'SELECT NULL::uuid, NULL::uuid WHERE false',
      update: `SELECT o.organization_id, o.id FROM new_rows n JOIN old_rows p ON p.id = n.id JOIN orders o ON o.organization_id = n.id
                WHERE n.header_custom_field_name IS DISTINCT FROM p.header_custom_field_name`,
    },
  ],
  // Locations list their vendors (code and name, live ones only) and jobs (attached or default).
  vendors: [{ resource: 'location', owners: (r) => `SELECT organization_id, location_id FROM ${r} r` }],
  jobs: [
    {
      resource: 'location',
      owners: (r) => `SELECT organization_id, default_location_id FROM ${r} r
                UNION SELECT jl.organization_id, jl.location_id FROM ${r} r JOIN job_locations jl ON jl.organization_id = r.organization_id AND jl.job_id = r.id`,
    },
  ],
  // Vendors embed their location.
  locations: [{ resource: 'vendor', owners: (r) => referring('vendors', 'location_id', r) }],
};

/** The objects of `table` (their `column` naming a changed row) that show it. */
const referring = (table: string, column: string, r: string) =>
  `SELECT x.organization_id, x.id FROM ${r} r JOIN ${table} x ON x.organization_id = r.organization_id AND x.${column} = r.id`;

/** The objects a changed file is attached to. */
const attachedTo = (table: string, column: string, r: string) =>
  `SELECT a.organization_id, a.${column} FROM ${r} r JOIN ${table} a ON a.organization_id = r.organization_id AND a.file_id = r.id`;

const SKIPPED = `current_setting('procurement.capturing', true) IS DISTINCT FROM 'off'`;

/** Per table, the resources a TRUNCATE of it re-checks: its own (a main table) and those whose reads show it. */
function truncated(): Map<string, string[]> {
  const resources = new Map<string, string[]>();
  for (const [table, resource] of Object.entries(CAPTURED_TABLES)) resources.set(table, [resource]);
  for (const [table, owners] of Object.entries(OWNERS)) resources.set(table, [...(resources.get(table) ?? []), ...owners.map((o) => o.resource)]);
  return resources;
}

/** The plpgsql statements queuing the owners of one transition (`rows`: new_rows, old_rows or both). */
function queue(owners: Owners[], op: 'INSERT' | 'UPDATE' | 'DELETE'): string {
  const rows = { INSERT: 'new_rows', DELETE: 'old_rows', UPDATE: '(SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows)' }[op];
  return owners
    .map(
      (o) => `
        INSERT INTO feed_captures (organization_id, resource, id)
        SELECT DISTINCT organization_id, '${o.resource}', id FROM (${op === 'UPDATE' && o.update ? o.update : o.owners(rows)}) AS o(organization_id, id)
         WHERE id IS NOT NULL;
        GET DIAGNOSTICS added = ROW_COUNT;
        queued := queued + added;`,
    )
    .join('');
}

export async function up(knex: Knex): Promise<void> {
  for (const [table, owners] of Object.entries(OWNERS)) {
    await knex.raw(`
      CREATE FUNCTION feed_capture_via_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        queued bigint := 0;
        added bigint;
      BEGIN
        IF TG_OP = 'INSERT' THEN ${queue(owners, 'INSERT')}
        ELSIF TG_OP = 'UPDATE' THEN ${queue(owners, 'UPDATE')}
        ELSE ${queue(owners, 'DELETE')}
        END IF;
        IF queued > 0 THEN
          PERFORM feed_capture_wake();
        END IF;
        RETURN NULL;
      END $$`);
    await knex.raw(
      `CREATE TRIGGER feed_capture_via_insert AFTER INSERT ON ?? REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture_via_${table}()`,
      [table],
    );
    await knex.raw(
      `CREATE TRIGGER feed_capture_via_update AFTER UPDATE ON ?? REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture_via_${table}()`,
      [table],
    );
    await knex.raw(
      `CREATE TRIGGER feed_capture_via_delete AFTER DELETE ON ?? REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture_via_${table}()`,
      [table],
    );
  }
  await knex.raw(`
    CREATE FUNCTION feed_capture_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- TG_ARGV: the resources to re-check. Every object the feed holds a state of is queued.
      INSERT INTO feed_captures (organization_id, resource, id)
      SELECT organization_id, resource, id FROM feed_objects WHERE resource = ANY(TG_ARGV) ORDER BY organization_id, resource, id;
      IF FOUND THEN
        PERFORM feed_capture_wake();
      END IF;
      RETURN NULL;
    END $$`);
  for (const [table, resources] of truncated()) {
    await knex.raw(
      `CREATE TRIGGER feed_capture_truncate AFTER TRUNCATE ON ?? FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture_truncate(${resources.map((r) => `'${r}'`).join(', ')})`,
      [table],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of truncated().keys()) await knex.raw('DROP TRIGGER IF EXISTS feed_capture_truncate ON ??', [table]);
  await knex.raw('DROP FUNCTION IF EXISTS feed_capture_truncate()');
  for (const table of Object.keys(OWNERS)) {
    for (const event of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER IF EXISTS feed_capture_via_${event} ON ??`, [table]);
    await knex.raw(`DROP FUNCTION IF EXISTS feed_capture_via_${table}()`);
  }
}
