import type { Knex } from 'knex';

/**
 * Bulk lists count their rows as all the organization's rows less those under a deleted order or
 * invoice (src/db/resource.ts, liveChildCount). These partial indexes hold only the deleted
 * parents, so finding them costs nothing however many live ones there are; the item side uses the
 * existing (organization_id, order_id) and (organization_id, invoice_id, ...) indexes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX orders_deleted_index ON orders (organization_id, id) WHERE deleted_at IS NOT NULL');
  await knex.raw('CREATE INDEX invoices_deleted_index ON invoices (organization_id, id) WHERE deleted_at IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS invoices_deleted_index');
  await knex.raw('DROP INDEX IF EXISTS orders_deleted_index');
}
