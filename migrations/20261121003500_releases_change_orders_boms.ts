import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

const INTEGRATION_STATES = `'NOT_LINKED','LINKING','LINKED','OUT_OF_SYNC','ERROR'`;

export async function up(knex: Knex): Promise<void> {
  // Versions of an order after the initial one (version 0 is the order itself). The diffs are
  // stored exactly as the API returns them (computed once, when the version is recorded).
  await knex.schema.createTable('change_orders', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'created_by_id', 'users', { onDelete: 'SET NULL' });
    t.integer('version_number').notNullable();
    t.text('label');
    t.text('note');
    t.boolean('draft').notNullable().defaultTo(false);
    t.jsonb('modified_order_values').notNullable().defaultTo('{}');
    t.jsonb('added_items').notNullable().defaultTo('[]');
    t.jsonb('deleted_items').notNullable().defaultTo('[]');
    t.jsonb('modified_items').notNullable().defaultTo('[]');
    t.text('integration_state').notNullable().defaultTo('NOT_LINKED');
    t.text('integration_message');
    t.check(`integration_state IN (${INTEGRATION_STATES})`);
    t.check('version_number >= 1');
    t.unique(['organization_id', 'order_id', 'version_number']);
    orderIndexes(t, ['created_at', 'updated_at']);
    t.index(['organization_id', 'draft', 'created_at', 'id']);
  });

  // Scheduled draws against hold-for-release orders. Costs are not stored: they are computed from
  // the order line items at request time.
  await knex.schema.createTable('releases', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'delivery_location_id', 'locations', { onDelete: 'SET NULL' });
    tenantRef(t, 'created_by_id', 'users', { onDelete: 'SET NULL' });
    t.text('release_number').notNullable();
    t.specificType('need_by_date_day', 'timestamptz(3)');
    t.text('need_by_window');
    t.text('notes');
    t.text('additional_notes');
    t.specificType('cancelled_at', 'timestamptz(3)');
    t.text('cancelled_reason');
    orderIndexes(t, ['created_at', 'need_by_date_day']);
    t.index(['organization_id', 'order_id', 'created_at']);
  });

  await knex.schema.createTable('release_items', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'release_id', 'releases', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'item_id', 'items', { notNullable: true, onDelete: 'CASCADE' });
    // Requisitions are another area's table; kept as an opaque reference.
    t.uuid('requisition_item_id');
    t.decimal('quantity_released').notNullable();
    t.decimal('backorder_quantity').notNullable().defaultTo(0);
  });

  // One bill of materials per job.
  await knex.schema.createTable('bills_of_materials', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'job_id', 'jobs', { notNullable: true, onDelete: 'CASCADE' });
    t.unique(['organization_id', 'job_id']);
  });

  await knex.schema.createTable('bill_of_materials_items', (t) => {
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'bill_of_materials_id', 'bills_of_materials', { notNullable: true, onDelete: 'CASCADE' });
    t.text('catalog_id');
    t.text('description').notNullable();
    t.decimal('estimated_quantity').notNullable();
    t.text('mpn');
    t.text('unit_of_measure').defaultTo('EA');
    t.decimal('unit_price');
    t.text('upc');
    // [{structureType, value}], at most one entry per structureType.
    t.jsonb('work_breakdown_structure_values').notNullable().defaultTo('[]');
    t.check('estimated_quantity >= 0 AND estimated_quantity = trunc(estimated_quantity)');
    t.check('unit_price IS NULL OR unit_price >= 0');
    t.index(['organization_id', 'bill_of_materials_id', 'created_at', 'id']);
    orderIndexes(t, ['created_at', 'updated_at', 'description', 'estimated_quantity', 'unit_price']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['bill_of_materials_items', 'bills_of_materials', 'release_items', 'releases', 'change_orders']) {
    await knex.schema.dropTableIfExists(table);
  }
}
