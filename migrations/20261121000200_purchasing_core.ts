import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

const INTEGRATION_STATES = `'NOT_LINKED','LINKING','LINKED','OUT_OF_SYNC','ERROR'`;

export async function up(knex: Knex): Promise<void> {
  // Lookup records items point at (their own operations are not in the contract).
  for (const table of ['gl_codes', 'cost_types', 'item_codes']) {
    await knex.schema.createTable(table, (t) => {
      tenantTable(t, knex);
      t.text('code').notNullable();
      t.text('description');
      t.unique(['organization_id', 'code']);
    });
  }

  await knex.schema.createTable('files', (t) => {
    tenantTable(t, knex);
    t.text('name');
    t.text('url');
  });

  await knex.schema.createTable('orders', (t) => {
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'RESTRICT' });
    tenantRef(t, 'vendor_id', 'vendors', { onDelete: 'RESTRICT' });
    tenantRef(t, 'delivery_location_id', 'locations', { onDelete: 'SET NULL' });
    tenantRef(t, 'created_by_id', 'users', { onDelete: 'SET NULL' });
    tenantRef(t, 'updated_by_id', 'users', { onDelete: 'SET NULL' });
    tenantRef(t, 'gl_code_id', 'gl_codes', { onDelete: 'SET NULL' });
    tenantRef(t, 'tax_code_id', 'tax_codes', { onDelete: 'SET NULL' });
    // Not unique: draft or cancelled orders may share PO numbers (the id is the only identifier).
    t.text('purchase_order_number');
    t.text('title');
    t.text('notes');
    t.text('delivery_instructions');
    t.double('discount');
    t.double('shipping_cost');
    t.text('field_contact_name');
    t.text('field_contact_phone');
    t.boolean('flagged').notNullable().defaultTo(false);
    t.specificType('flagged_at', 'timestamptz(3)');
    t.text('flag_message');
    t.boolean('tax_exempt');
    t.text('integration_state').notNullable().defaultTo('NOT_LINKED');
    t.text('integration_message');
    t.specificType('integration_last_sync', 'timestamptz(3)');
    t.text('mode').notNullable().defaultTo('ISSUE_PO');
    t.specificType('need_by_date_day', 'timestamptz(3)');
    t.text('need_by_window').notNullable().defaultTo('UNSPECIFIED');
    t.text('state').notNullable().defaultTo('DRAFT');
    t.text('type').notNullable().defaultTo('STANDARD');
    t.text('received_state').notNullable().defaultTo('NO_DELIVERIES');
    t.text('custom_column_value');
    t.text('off_rent_date');
    t.text('off_rent_number');
    t.text('distributor_contact_name');
    t.text('distributor_contact_email');
    t.text('distributor_contact_phone');
    t.text('distributor_contact_company');
    t.boolean('is_visible_to_field');
    t.text('header_custom_field_value');
    t.check(`integration_state IN (${INTEGRATION_STATES})`);
    t.check(`mode IN ('ISSUE_PO','PRE_ACKNOWLEDGED','REQUEST_FOR_QUOTE')`);
    t.check(`need_by_window IN ('ASAP','AMEarly','AM','PM','PMLate','UNSPECIFIED')`);
    t.check(`state IN ('DRAFT','BID_ACTIVE','BID_CANCELLED','FINALIZING','ACTIVE','CANCELLED','COMPLETE')`);
    t.check(`type IN ('HOLD_FOR_RELEASE','MAJOR','STANDARD')`);
    t.check(`received_state IN ('NO_DELIVERIES','PARTIALLY_RECEIVED','FULLY_RECEIVED')`);
    orderIndexes(t, ['created_at', 'flagged_at', 'need_by_date_day', 'purchase_order_number', 'updated_at']);
    t.index(['organization_id', 'integration_state']);
    t.index(['organization_id', 'job_id', 'purchase_order_number']);
  });

  await knex.schema.createTable('order_attachments', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'file_id', 'files', { notNullable: true, onDelete: 'CASCADE' });
    t.text('identifier');
  });

  await knex.schema.createTable('items', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE' });
    t.integer('line_number').notNullable();
    t.text('description');
    t.double('quantity');
    t.double('extended_quantity');
    t.text('units_of_measure');
    tenantRef(t, 'units_of_measure_id', 'units_of_measure', { onDelete: 'SET NULL' });
    t.text('requested_uom');
    t.text('pricing_uom');
    t.text('extended_uom');
    t.double('unit_price');
    t.double('scaled_unit_price');
    // Percent, up to 13 decimal places.
    t.decimal('unit_discount', 20, 13);
    t.double('ext_price');
    t.double('ext_price_including_tax');
    t.specificType('backorder_lead_time', 'timestamptz(3)');
    t.double('backorder_quantity');
    t.specificType('need_by_date', 'timestamptz(3)');
    t.specificType('expected_delivery_time', 'timestamptz(3)');
    t.text('manufacturer');
    t.text('manufacturer_part_number');
    t.text('universal_product_code');
    t.text('vendor_part_number');
    t.text('notes');
    t.text('custom_column_value');
    tenantRef(t, 'item_code_id', 'item_codes', { onDelete: 'SET NULL' });
    t.text('item_code_text');
    tenantRef(t, 'cost_category_id', 'cost_categories', { onDelete: 'SET NULL' });
    tenantRef(t, 'cost_type_id', 'cost_types', { onDelete: 'SET NULL' });
    tenantRef(t, 'gl_code_id', 'gl_codes', { onDelete: 'SET NULL' });
    tenantRef(t, 'tax_code_id', 'tax_codes', { onDelete: 'SET NULL' });
    tenantRef(t, 'phase_id', 'phases', { onDelete: 'SET NULL' });
    // Sub-jobs of other systems map to phases.
    tenantRef(t, 'sub_job_id', 'phases', { onDelete: 'SET NULL' });
    // Inventory ledgers are outside this service's contract (fields not shown): opaque references.
    t.uuid('costs_inventory_item_ledger_entry_id');
    t.uuid('destination_inventory_item_ledger_id');
    t.text('catalog_id');
    orderIndexes(t, ['created_at', 'updated_at', 'need_by_date', 'backorder_lead_time', 'universal_product_code', 'vendor_part_number']);
    t.index(['organization_id', 'order_id', 'line_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['items', 'order_attachments', 'orders', 'files', 'item_codes', 'cost_types', 'gl_codes']) {
    await knex.schema.dropTableIfExists(table);
  }
}
