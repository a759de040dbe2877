import type { Knex } from 'knex';

/**
 * The integrator's own ids (API field `externalId`) on the objects an ERP mirrors: set on create or
 * update (or an integration report), unique per organization and resource when set (among live
 * objects where the table soft-deletes), found with `filter[externalId]`. Partial unique indexes
 * lead with organization_id (tenant tables stay distributable); they also serve the filter.
 */
const TABLES: { table: string; live: boolean }[] = [
  { table: 'orders', live: true },
  { table: 'items', live: false },
  { table: 'invoices', live: true },
  { table: 'delivery_receipts', live: true },
  { table: 'requisitions', live: true },
  { table: 'change_orders', live: false },
];

export async function up(knex: Knex): Promise<void> {
  for (const { table, live } of TABLES) {
    await knex.raw(`ALTER TABLE ?? ADD COLUMN external_id text`, [table]);
    await knex.raw(`COMMENT ON COLUMN ??.external_id IS 'API field \`externalId\`: the integrator''s own id of the object; NULL when none.'`, [table]);
    await knex.raw(`CREATE UNIQUE INDEX ?? ON ?? (organization_id, external_id) WHERE external_id IS NOT NULL${live ? ' AND deleted_at IS NULL' : ''}`, [
      `${table}_organization_id_external_id_unique`,
      table,
    ]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table } of TABLES) await knex.raw('ALTER TABLE ?? DROP COLUMN external_id', [table]);
}
