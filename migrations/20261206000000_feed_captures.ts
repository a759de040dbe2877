import type { Knex } from 'knex';

/**
 * Change capture in the database (issue #42): every committed INSERT, UPDATE or DELETE of a synced
 * object's row, whoever makes it (an operator's SQL, a `COPY`, a migration, a script), queues the
 * changed ids in `feed_captures` in the writer's own transaction, and wakes the worker's
 * `feed_capture` task, which appends their feed entries within seconds
 * (src/resources/reconciliation/captures.ts). The queue is a table: a change committed while no
 * instance runs is appended by the next one.
 *
 * The triggers are statement-level with transition tables (one insert per statement, however
 * many rows; a `COPY` of 100,000 rows is one statement). They keep the organization of every
 * row. The service's own write transactions (src/feed/append.ts writeTransaction) set
 * `procurement.capturing` to `off` for the transaction: their changes enter the feed with the
 * write itself, so the triggers' WHEN skips them (no queue row, no plpgsql call).
 *
 * No foreign key to organizations: an organization's deletion cascades into these tables and the
 * triggers' inserts must not fail it; the task drops the queue rows of an organization that is gone.
 *
 * The table-to-resource list below is the tables of the ResourceDefs of
 * src/resources/reconciliation/sources.ts (test/unit/feed-capture-tables.test.ts holds them equal).
 */
export const CAPTURED_TABLES: Record<string, string> = {
  bills_of_materials: 'bill_of_materials',
  bill_of_materials_items: 'bom_item',
  change_orders: 'change_order',
  cost_categories: 'cost_category',
  delivery_receipts: 'delivery_receipt',
  groups: 'group',
  invoice_items: 'invoice_item',
  invoices: 'invoice',
  items: 'item',
  jobs: 'job',
  locations: 'location',
  notifications: 'notification',
  orders: 'order',
  phases: 'phase',
  releases: 'release',
  requisitions: 'requisition',
  tags: 'tag',
  tax_codes: 'tax_code',
  units_of_measure: 'unit_of_measure',
  users: 'user',
  vendors: 'vendor',
  warehouse_requests: 'warehouse_request',
};

const SKIPPED = `current_setting('procurement.capturing', true) IS DISTINCT FROM 'off'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE feed_captures (
      seq bigserial PRIMARY KEY,
      organization_id uuid NOT NULL,
      resource text NOT NULL,
      id uuid NOT NULL,
      captured_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  await knex.raw('CREATE INDEX feed_captures_organization ON feed_captures (organization_id, seq)');
  for (const [column, comment] of [
    ['seq', "Order of capture: the task takes an organization''s rows in this order."],
    ['organization_id', "The changed row''s organization (no foreign key: see the migration)."],
    ['resource', 'The feed resource of the changed table (vendor, item, ...).'],
    ['id', 'Id of the changed object (inserted, updated or deleted row).'],
    ['captured_at', 'When the triggering statement ran.'],
  ]) {
    await knex.raw(`COMMENT ON COLUMN feed_captures.?? IS '${comment}'`, [column]);
  }
  await knex.raw(
    `COMMENT ON TABLE feed_captures IS 'Ids of synced objects changed outside the API''s write path, waiting for their feed entries (the worker''s feed_capture task).'`,
  );
  // The doorbell: best effort, as webhook_wake (20261125010000): it never fails the write that
  // rings it; the task's minute tick and every instance's start catch up on a missed ring.
  await knex.raw(`
    CREATE FUNCTION feed_capture_wake() RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      job_id bigint;
    BEGIN
      IF to_regnamespace('graphile_worker') IS NULL THEN
        RETURN;
      END IF;
      BEGIN
        -- add_job may drop the ring when a worker takes the job meanwhile (graphile/worker#580): ring again.
        FOR ring IN 1..5 LOOP
          SELECT j.id INTO job_id FROM graphile_worker.add_job('feed_capture', '{}'::json, job_key => 'feed_capture') AS j;
          EXIT WHEN job_id IS NOT NULL;
        END LOOP;
      EXCEPTION WHEN OTHERS THEN
        RAISE WARNING 'feed_capture_wake: no job (%); the next tick appends the entries', SQLERRM;
      END;
    END $$`);
  await knex.raw(`
    CREATE FUNCTION feed_capture() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO feed_captures (organization_id, resource, id) SELECT organization_id, TG_ARGV[0], id FROM new_rows;
      ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO feed_captures (organization_id, resource, id)
        SELECT organization_id, TG_ARGV[0], id FROM new_rows UNION SELECT organization_id, TG_ARGV[0], id FROM old_rows;
      ELSE
        INSERT INTO feed_captures (organization_id, resource, id) SELECT organization_id, TG_ARGV[0], id FROM old_rows;
      END IF;
      IF FOUND THEN
        PERFORM feed_capture_wake();
      END IF;
      RETURN NULL;
    END $$`);
  for (const [table, resource] of Object.entries(CAPTURED_TABLES)) {
    // A trigger with transition tables has one event (a PostgreSQL rule): three per table.
    await knex.raw(
      `CREATE TRIGGER feed_capture_insert AFTER INSERT ON ?? REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture('${resource}')`,
      [table],
    );
    await knex.raw(
      `CREATE TRIGGER feed_capture_update AFTER UPDATE ON ?? REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture('${resource}')`,
      [table],
    );
    await knex.raw(
      `CREATE TRIGGER feed_capture_delete AFTER DELETE ON ?? REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT WHEN (${SKIPPED}) EXECUTE FUNCTION feed_capture('${resource}')`,
      [table],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(CAPTURED_TABLES)) {
    for (const event of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER IF EXISTS feed_capture_${event} ON ??`, [table]);
  }
  await knex.raw('DROP FUNCTION IF EXISTS feed_capture()');
  await knex.raw('DROP FUNCTION IF EXISTS feed_capture_wake()');
  await knex.raw('DROP TABLE IF EXISTS feed_captures');
}
