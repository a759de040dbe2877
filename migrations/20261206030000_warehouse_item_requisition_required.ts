import type { Knex } from 'knex';

const TABLE = 'warehouse_request_items';
/** The most ids the refusal names (the count is always exact). */
const SHOWN = 20;

/**
 * Every warehouse-request item comes from a requisition (the spec: `WarehouseRequestItem:
 * requisitionId ID`, not optional), and the database keeps it so. No API operation writes these
 * items; rows without one can only come from outside the API, and no requisition can be made up for
 * them here: the migration stops, naming them, until an operator sets or removes them.
 *
 * The reference no longer nulls itself when its requisition is deleted (ON DELETE SET NULL would
 * now fail on NOT NULL): such a delete is refused while items point at it (NO ACTION, checked at
 * the end of the statement, so deleting the organization still removes both).
 */
export async function up(knex: Knex): Promise<void> {
  // No row without one may be written between the check and the ALTER.
  await knex.raw('LOCK TABLE ?? IN SHARE MODE', [TABLE]);
  const [{ n }] = await knex(TABLE).whereNull('requisition_id').count({ n: '*' });
  const count = Number(n);
  if (count > 0) {
    const ids = await knex(TABLE).whereNull('requisition_id').orderBy('id').limit(SHOWN).pluck('id');
    throw new Error(
      `${count} row(s) of ${TABLE} have no requisition_id, which every warehouse-request item must have (WarehouseRequestItem.requisitionId): ` +
        `${ids.join(', ')}${count > SHOWN ? `, ... (${count - SHOWN} more: SELECT id FROM ${TABLE} WHERE requisition_id IS NULL)` : ''}. ` +
        'Set each one to the requisition the line came from (or delete the line), then start the service again to migrate.',
    );
  }
  await knex.raw('ALTER TABLE ?? ALTER COLUMN requisition_id SET NOT NULL', [TABLE]);
  await knex.raw(`COMMENT ON COLUMN ??.requisition_id IS 'API field \`requisitionId\`: the requisition the line came from.'`, [TABLE]);
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropForeign(['organization_id', 'requisition_id']);
  });
  await knex.schema.alterTable(TABLE, (t) => {
    t.foreign(['organization_id', 'requisition_id']).references(['organization_id', 'id']).inTable('requisitions');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable(TABLE, (t) => {
    t.dropForeign(['organization_id', 'requisition_id']);
  });
  await knex.raw('ALTER TABLE ?? ALTER COLUMN requisition_id DROP NOT NULL', [TABLE]);
  await knex.raw(
    `COMMENT ON COLUMN ??.requisition_id IS 'API field \`requisitionId\`: the requisition the line came from; NULL when added on the warehouse request directly.'`,
    [TABLE],
  );
  await knex.schema.alterTable(TABLE, (t) => {
    // As tenantRef made it (src/db/schema-helpers.ts): only the reference is nulled, not organization_id.
    t.foreign(['organization_id', 'requisition_id'])
      .references(['organization_id', 'id'])
      .inTable('requisitions')
      .onDelete('SET NULL (requisition_id)' as 'SET NULL');
  });
}
