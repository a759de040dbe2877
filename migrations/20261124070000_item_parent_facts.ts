import type { Knex } from 'knex';

/**
 * The bulk lists (GET /items, GET /invoice-items) read one table: the parent facts they need (is
 * the order / invoice deleted, its job and vendor) are kept on each item row, and the exact number
 * of each organization's visible items is kept in `live_row_counts`. Both are maintained by
 * triggers in the writing transaction, so every write path (handlers, batch operations, direct
 * SQL, foreign-key cascades such as an order's deletion removing its items) keeps them
 * equal to their source. test/items-denormalized.test.ts compares them after a mixed workload.
 */

interface Child {
  table: string;
  parent: string;
  /** The child's reference to its parent. */
  ref: string;
  /** Prefix of the copied columns (order_job_id, invoice_deleted, ...). */
  prefix: string;
}

const CHILDREN: Child[] = [
  { table: 'items', parent: 'orders', ref: 'order_id', prefix: 'order' },
  { table: 'invoice_items', parent: 'invoices', ref: 'invoice_id', prefix: 'invoice' },
];

/** Per event: its transition tables, and the +1 / -1 per visible row they hold. */
const COUNTED = [
  { event: 'INSERT', tables: 'NEW TABLE AS added', deltas: (deleted: string) => `SELECT organization_id, 1 AS n FROM added WHERE NOT ${deleted}` },
  {
    event: 'UPDATE',
    tables: 'OLD TABLE AS removed NEW TABLE AS added',
    deltas: (deleted: string) =>
      `SELECT organization_id, 1 AS n FROM added WHERE NOT ${deleted} UNION ALL SELECT organization_id, -1 FROM removed WHERE NOT ${deleted}`,
  },
  { event: 'DELETE', tables: 'OLD TABLE AS removed', deltas: (deleted: string) => `SELECT organization_id, -1 AS n FROM removed WHERE NOT ${deleted}` },
];

const facts = (c: Child) => ({ job: `${c.prefix}_job_id`, vendor: `${c.prefix}_vendor_id`, deleted: `${c.prefix}_deleted` });

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('live_row_counts', (t) => {
    // No foreign key: rows are written by triggers while an organization's items are deleted with it.
    t.uuid('organization_id').notNullable().comment('Owner of the counted rows.');
    t.text('relation').notNullable().comment('The counted table: items or invoice_items.');
    t.bigInteger('n').notNullable().comment('A change in the number of visible rows; their sum per organization and relation is the exact count.');
    t.index(['organization_id', 'relation']);
  });
  await knex.raw(
    `COMMENT ON TABLE live_row_counts IS 'Exact counts of items and invoice items not under a deleted parent, as deltas summed per organization (kept by triggers, compacted as they grow).'`,
  );

  for (const c of CHILDREN) {
    const f = facts(c);
    await knex.schema.alterTable(c.table, (t) => {
      t.uuid(f.job).comment(`Copy of ${c.parent}.job_id of the parent (trigger-maintained).`);
      t.uuid(f.vendor).comment(`Copy of ${c.parent}.vendor_id of the parent (trigger-maintained).`);
      t.boolean(f.deleted)
        .notNullable()
        .defaultTo(false)
        .comment(`Whether the parent is soft-deleted (${c.parent}.deleted_at IS NOT NULL; trigger-maintained).`);
    });
    await knex.raw(`UPDATE ${c.table} x SET ${f.job} = p.job_id, ${f.vendor} = p.vendor_id, ${f.deleted} = p.deleted_at IS NOT NULL
      FROM ${c.parent} p WHERE p.organization_id = x.organization_id AND p.id = x.${c.ref}`);
    // The bulk list's order (createdAt DESC, id DESC), over visible rows only; and per job.
    await knex.raw(`CREATE INDEX ${c.table}_live_created_at_index ON ${c.table} (organization_id, created_at, id) WHERE NOT ${f.deleted}`);
    await knex.raw(`CREATE INDEX ${c.table}_live_job_created_at_index ON ${c.table} (organization_id, ${f.job}, created_at, id) WHERE NOT ${f.deleted}`);

    // A new row, or one moved to another parent, reads its parent's facts under the parent's row
    // lock: it waits for a concurrent, uncommitted change of the parent (whose own trigger cannot
    // see this new row) and then reads its committed values; a parent change that comes later
    // waits for this transaction instead and then updates the row. FOR NO KEY UPDATE, the mode an
    // UPDATE of the parent takes (the order store touches the order after every item write): with
    // FOR SHARE, two transactions adding items to one order would each wait for the other's share
    // lock there (a deadlock). Writing the copied columns directly only re-reads them.
    await knex.raw(`
      CREATE FUNCTION ${c.table}_read_parent_facts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT p.job_id, p.vendor_id, p.deleted_at IS NOT NULL INTO NEW.${f.job}, NEW.${f.vendor}, NEW.${f.deleted}
          FROM ${c.parent} p WHERE p.organization_id = NEW.organization_id AND p.id = NEW.${c.ref} FOR NO KEY UPDATE;
        NEW.${f.deleted} := coalesce(NEW.${f.deleted}, false);
        RETURN NEW;
      END $$`);
    await knex.raw(`CREATE TRIGGER ${c.table}_read_parent_facts BEFORE INSERT OR UPDATE OF organization_id, ${c.ref}, ${f.job}, ${f.vendor}, ${f.deleted}
      ON ${c.table} FOR EACH ROW EXECUTE FUNCTION ${c.table}_read_parent_facts()`);

    // A parent's change of job, vendor or deletion reaches its rows in the same statement.
    await knex.raw(`
      CREATE FUNCTION ${c.parent}_push_facts_to_${c.table}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE ${c.table} x SET ${f.job} = NEW.job_id, ${f.vendor} = NEW.vendor_id, ${f.deleted} = NEW.deleted_at IS NOT NULL
          WHERE x.organization_id = NEW.organization_id AND x.${c.ref} = NEW.id;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE TRIGGER ${c.parent}_push_facts_to_${c.table} AFTER UPDATE OF job_id, vendor_id, deleted_at ON ${c.parent} FOR EACH ROW
      WHEN (OLD.job_id IS DISTINCT FROM NEW.job_id OR OLD.vendor_id IS DISTINCT FROM NEW.vendor_id OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
      EXECUTE FUNCTION ${c.parent}_push_facts_to_${c.table}()`);

    // Counts: one delta row per organization and statement (statement triggers see all the rows a
    // statement changed, foreign-key cascades included). Deltas are appended, never updated, so
    // writers of one organization never wait on each other here. Once an organization has more
    // than 32 delta rows, a writer folds the committed ones into one row (one writer at a time
    // per organization: the advisory lock; others skip). Readers see either the old rows or the
    // folded row, never both: the fold commits as one.
    for (const op of COUNTED) {
      await knex.raw(`
        CREATE FUNCTION ${c.table}_count_${op.event.toLowerCase()}() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          org uuid;
        BEGIN
          FOR org IN
            WITH d AS (
              INSERT INTO live_row_counts (organization_id, relation, n)
              SELECT organization_id, '${c.table}', sum(n) FROM (${op.deltas(f.deleted)}) s
              GROUP BY organization_id HAVING sum(n) <> 0
              RETURNING organization_id)
            SELECT organization_id FROM d
          LOOP
            IF current_setting('transaction_isolation') = 'read committed'
               AND (SELECT count(*) FROM live_row_counts WHERE organization_id = org AND relation = '${c.table}') > 32
               AND pg_try_advisory_xact_lock(hashtextextended('live_row_counts ${c.table} ' || org::text, 0)) THEN
              WITH folded AS (DELETE FROM live_row_counts WHERE organization_id = org AND relation = '${c.table}' RETURNING n)
              INSERT INTO live_row_counts (organization_id, relation, n) SELECT org, '${c.table}', sum(n) FROM folded;
            END IF;
          END LOOP;
          RETURN NULL;
        END $$`);
      await knex.raw(`CREATE TRIGGER ${c.table}_count_${op.event.toLowerCase()} AFTER ${op.event} ON ${c.table} REFERENCING ${op.tables}
        FOR EACH STATEMENT EXECUTE FUNCTION ${c.table}_count_${op.event.toLowerCase()}()`);
    }
    await knex.raw(`INSERT INTO live_row_counts (organization_id, relation, n)
      SELECT organization_id, '${c.table}', count(*) FROM ${c.table} WHERE NOT ${f.deleted} GROUP BY organization_id`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const c of [...CHILDREN].reverse()) {
    const f = facts(c);
    for (const trigger of ['count_insert', 'count_update', 'count_delete', 'read_parent_facts']) {
      await knex.raw(`DROP TRIGGER IF EXISTS ${c.table}_${trigger} ON ${c.table}`);
    }
    await knex.raw(`DROP TRIGGER IF EXISTS ${c.parent}_push_facts_to_${c.table} ON ${c.parent}`);
    for (const op of COUNTED) await knex.raw(`DROP FUNCTION IF EXISTS ${c.table}_count_${op.event.toLowerCase()}()`);
    await knex.raw(`DROP FUNCTION IF EXISTS ${c.table}_read_parent_facts()`);
    await knex.raw(`DROP FUNCTION IF EXISTS ${c.parent}_push_facts_to_${c.table}()`);
    await knex.raw(`DROP INDEX IF EXISTS ${c.table}_live_job_created_at_index`);
    await knex.raw(`DROP INDEX IF EXISTS ${c.table}_live_created_at_index`);
    await knex.schema.alterTable(c.table, (t) => {
      t.dropColumns(f.job, f.vendor, f.deleted);
    });
  }
  await knex.schema.dropTable('live_row_counts');
}
