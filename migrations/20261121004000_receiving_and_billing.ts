import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

/**
 * Field requests, warehouse requests, delivery receipts and invoices. These records are written by
 * the application (and here by demo data and fixtures); the API reads them, changes requisition
 * states, reports integration states and marks invoices paid.
 */
const INTEGRATION_STATES = `'NOT_LINKED','LINKING','LINKED','OUT_OF_SYNC','ERROR'`;
const ISSUE_KINDS = ['MISSING', 'DAMAGED', 'NO_ISSUES', 'WRONG_ITEM', 'BACKORDERED'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('requisitions', (t) => {
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'job_id', 'jobs', { notNullable: true, onDelete: 'RESTRICT' });
    tenantRef(t, 'created_by_id', 'users', { onDelete: 'SET NULL' });
    tenantRef(t, 'updated_by_id', 'users', { onDelete: 'SET NULL' });
    tenantRef(t, 'ordering_agent_id', 'users', { notNullable: true, onDelete: 'RESTRICT' });
    tenantRef(t, 'deleted_by_id', 'users', { onDelete: 'SET NULL' });
    tenantRef(t, 'delivery_location_id', 'locations', { onDelete: 'SET NULL' });
    t.text('identifier').notNullable();
    t.text('state').notNullable().defaultTo('DRAFT');
    t.text('notes');
    t.specificType('manually_closed_at', 'timestamptz(3)');
    t.text('need_by_date_category').notNullable().defaultTo('ASAP');
    t.specificType('need_by_date_day', 'timestamptz(3)');
    t.text('need_by_window').notNullable().defaultTo('Anytime (7am - 5pm)');
    t.specificType('sent_at', 'timestamptz(3)');
    t.specificType('scheduled_at', 'timestamptz(3)');
    t.text('title');
    t.text('vendor_contact_id');
    t.check(`state IN ('ACKNOWLEDGED','CLOSED','DRAFT','OPEN','IN_REVIEW','PARTIALLY_FULFILLED')`);
    t.check(`need_by_date_category IN ('ASAP','DATE','HOLD_FOR_RELEASE')`);
    orderIndexes(t, ['created_at', 'need_by_date_day', 'identifier', 'updated_at', 'state', 'title']);
  });

  await knex.schema.createTable('requisition_items', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'requisition_id', 'requisitions', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'created_by_id', 'users', { onDelete: 'SET NULL' });
    tenantRef(t, 'line_item_id', 'items', { onDelete: 'SET NULL' });
    tenantRef(t, 'purchase_order_id', 'orders', { onDelete: 'SET NULL' });
    t.integer('line_number').notNullable();
    t.boolean('allow_substitution').notNullable().defaultTo(false);
    t.text('description');
    t.text('manufacturer_part_number');
    t.text('notes');
    t.double('quantity');
    t.double('quantity_delivered').notNullable().defaultTo(0);
    t.text('rejection_message');
    t.text('rejection_reason');
    t.text('state').notNullable().defaultTo('UNPROCESSED');
    t.text('units_of_measure');
    t.text('universal_product_code');
    t.jsonb('integration_data').notNullable().defaultTo('{}');
    t.text('catalog_id');
    // The quantities behind `states` (how much of the line is in each stage).
    for (const c of ['qty_added_to_po', 'qty_requested', 'qty_rejected_by_purchasing', 'qty_added_to_warehouse_request', 'qty_acknowledged_by_purchasing']) {
      t.double(c).notNullable().defaultTo(0);
    }
    t.check(`state IN ('UNPROCESSED','ADDED_TO_PO','PARTIALLY_ADDED_TO_PO','REJECTED','ADDED_TO_WAREHOUSE_REQUEST','ACKNOWLEDGED')`);
    for (const c of ['line_number', 'created_at', 'updated_at', 'state']) t.index(['organization_id', 'requisition_id', c], `req_items_${c}_index`);
  });

  await knex.schema.createTable('warehouse_requests', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'job_id', 'jobs', { notNullable: true, onDelete: 'RESTRICT' });
    tenantRef(t, 'location_id', 'locations', { notNullable: true, onDelete: 'RESTRICT' });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT' });
    t.text('identifier').notNullable();
    t.text('state').notNullable().defaultTo('DRAFT');
    t.specificType('need_by_date_day', 'timestamptz(3)').notNullable();
    t.check(`state IN ('ACKNOWLEDGED','DRAFT','SENT')`);
    orderIndexes(t, ['created_at', 'need_by_date_day', 'state', 'identifier', 'updated_at']);
  });

  await knex.schema.createTable('warehouse_request_items', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'warehouse_request_id', 'warehouse_requests', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'requisition_id', 'requisitions', { onDelete: 'SET NULL' });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT' });
    t.integer('line_number').notNullable();
    t.text('state').notNullable().defaultTo('DRAFT');
    t.text('description').notNullable();
    t.double('quantity');
    t.double('picked_quantity');
    t.text('uom').notNullable().defaultTo('EA');
    t.text('notes');
    t.text('upc');
    t.text('sku');
    t.text('mpn');
    t.check(`state IN ('CANCELLED','DRAFT','PARTIAL_PICK','PICKED','REQUESTED','SHIPPED','UNAVAILABLE')`);
    for (const c of ['line_number', 'created_at', 'updated_at', 'state', 'sku', 'upc', 'mpn', 'quantity', 'picked_quantity', 'created_by_id']) {
      // Explicit names: the generated ones exceed PostgreSQL's 63 characters and would collide.
      t.index(['organization_id', 'warehouse_request_id', c], `wr_items_${c}_index`);
    }
  });

  await knex.schema.createTable('delivery_receipts', (t) => {
    // Deleting a receipt sets deleted_at (returned as archivedAt) and bumps updated_at.
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'order_id', 'orders', { onDelete: 'SET NULL' });
    tenantRef(t, 'warehouse_request_id', 'warehouse_requests', { onDelete: 'SET NULL' });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT' });
    t.text('identifier');
    t.text('notes');
    t.text('state').notNullable().defaultTo('DRAFT');
    t.specificType('notified_contacts', 'text[]').notNullable().defaultTo('{}');
    t.text('integration_state').notNullable().defaultTo('NOT_LINKED');
    t.text('integration_message');
    t.specificType('integration_last_sync', 'timestamptz(3)');
    t.check(`state IN ('SUBMITTED','DRAFT')`);
    t.check(`integration_state IN (${INTEGRATION_STATES})`);
    // notes is free text of any length: a btree on it could reject long values, so it has none.
    orderIndexes(t, ['created_at', 'updated_at', 'deleted_at', 'identifier', 'state']);
  });

  await knex.schema.createTable('delivery_receipt_attachments', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'delivery_receipt_id', 'delivery_receipts', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'file_id', 'files', { notNullable: true, onDelete: 'CASCADE' });
  });

  const zeroIssues = JSON.stringify(Object.fromEntries(ISSUE_KINDS.map((k) => [k, 0])));
  await knex.schema.createTable('delivery_receipt_items', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'delivery_receipt_id', 'delivery_receipts', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'item_id', 'items', { onDelete: 'SET NULL' });
    t.text('description').notNullable().defaultTo('');
    t.text('notes');
    t.double('quantity').notNullable().defaultTo(0);
    t.double('quantity_received_this_receipt').notNullable().defaultTo(0);
    t.text('units_of_measure').notNullable().defaultTo('EA');
    // Amount per issue kind; every kind is present and a number.
    t.jsonb('issues').notNullable().defaultTo(zeroIssues);
    t.check(ISSUE_KINDS.map((k) => `jsonb_typeof(issues -> '${k}') = 'number'`).join(' AND '));
    t.index(['organization_id', 'delivery_receipt_id', 'created_at']);
  });

  // The issue kinds a receipt has: each problem kind with a non-zero amount on one of its items, in
  // the spec's key order; ['NO_ISSUES'] when there is none. Output and issueType_in share it.
  await knex.raw(`
    CREATE FUNCTION delivery_receipt_issues(org uuid, receipt uuid) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
      SELECT coalesce(
        (SELECT array_agg(k.kind ORDER BY k.pos)
           FROM unnest(ARRAY['MISSING','DAMAGED','WRONG_ITEM','BACKORDERED']) WITH ORDINALITY AS k(kind, pos)
          WHERE EXISTS (SELECT 1 FROM delivery_receipt_items i
                         WHERE i.organization_id = org AND i.delivery_receipt_id = receipt
                           AND (i.issues ->> k.kind)::numeric <> 0)),
        ARRAY['NO_ISSUES'])
    $$`);

  await knex.schema.createTable('invoices', (t) => {
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT' });
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'SET NULL' });
    tenantRef(t, 'vendor_id', 'vendors', { onDelete: 'SET NULL' });
    tenantRef(t, 'order_id', 'orders', { onDelete: 'SET NULL' });
    for (const who of ['approved_by_id', 'flagged_by_id', 'paid_by_id', 'rejected_by_id', 'voided_by_id']) {
      tenantRef(t, who, 'users', { onDelete: 'SET NULL' });
    }
    t.text('title');
    t.text('invoice_number');
    t.text('type').notNullable().defaultTo('INVOICE');
    t.text('category');
    t.text('state').notNullable().defaultTo('INBOX');
    t.specificType('approved_at', 'timestamptz(3)');
    t.specificType('assigned_at', 'timestamptz(3)');
    t.specificType('due_date', 'timestamptz(3)');
    t.specificType('invoice_date', 'timestamptz(3)');
    t.specificType('ship_date', 'timestamptz(3)');
    t.specificType('exceptions', 'text[]').notNullable().defaultTo('{}');
    t.boolean('flagged').notNullable().defaultTo(false);
    t.specificType('flagged_at', 'timestamptz(3)');
    t.text('flag_message');
    t.specificType('paid_at', 'timestamptz(3)');
    t.double('payments');
    t.specificType('rejected_at', 'timestamptz(3)');
    t.text('rejected_reason');
    t.text('salesperson');
    t.text('ship_via');
    t.text('terms');
    t.double('shipping_cost');
    t.double('subtotal');
    t.double('tax');
    t.double('total_due');
    t.boolean('tax_exempt').notNullable().defaultTo(false);
    t.specificType('voided_at', 'timestamptz(3)');
    t.text('integration_state').notNullable().defaultTo('NOT_LINKED');
    t.text('integration_message');
    t.check(`type IN ('INVOICE','CREDIT_MEMO')`);
    t.check(`category IS NULL OR category IN ('genContractor','material','miscellaneous','rentals')`);
    t.check(`state IN ('APPROVED','CLOSED','INBOX','PENDING')`);
    t.check(`integration_state IN ('NOT_LINKED','LINKING','LINKED','ERROR')`);
    orderIndexes(t, [
      'approved_at',
      'created_at',
      'flagged_at',
      'invoice_date',
      'paid_at',
      'rejected_at',
      'ship_date',
      'updated_at',
      'voided_at',
      'invoice_number',
      'category',
      'state',
      'integration_state',
      'type',
    ]);
  });

  await knex.schema.createTable('invoice_attachments', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'invoice_id', 'invoices', { notNullable: true, onDelete: 'CASCADE' });
    tenantRef(t, 'file_id', 'files', { notNullable: true, onDelete: 'CASCADE' });
  });

  await knex.schema.createTable('invoice_items', (t) => {
    tenantTable(t, knex);
    tenantRef(t, 'invoice_id', 'invoices', { notNullable: true, onDelete: 'CASCADE' });
    t.integer('line_number').notNullable();
    t.text('description');
    t.text('notes');
    t.double('ship_quantity');
    t.double('extended_quantity');
    t.double('unit_price');
    t.double('scaled_unit_price');
    t.double('ext_price');
    t.double('ext_price_including_tax');
    t.text('units_of_measure');
    t.text('requested_uom');
    t.text('pricing_uom');
    t.text('extended_uom');
    t.double('tax_rate');
    t.boolean('has_exception').notNullable().defaultTo(false);
    t.text('manufacturer_part_number');
    t.text('universal_product_code');
    tenantRef(t, 'tax_code_id', 'tax_codes', { onDelete: 'SET NULL' });
    tenantRef(t, 'phase_id', 'phases', { onDelete: 'SET NULL' });
    tenantRef(t, 'cost_category_id', 'cost_categories', { onDelete: 'SET NULL' });
    tenantRef(t, 'gl_code_id', 'gl_codes', { onDelete: 'SET NULL' });
    tenantRef(t, 'cost_type_id', 'cost_types', { onDelete: 'SET NULL' });
    tenantRef(t, 'item_code_id', 'item_codes', { onDelete: 'SET NULL' });
    t.text('item_code_text');
    // Bulk pulls across invoices order by these (default created_at DESC).
    orderIndexes(t, ['created_at', 'updated_at', 'description', 'has_exception', 'line_number']);
    for (const c of ['line_number', 'created_at', 'updated_at', 'has_exception']) t.index(['organization_id', 'invoice_id', c], `inv_items_${c}_index`);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'invoice_items',
    'invoice_attachments',
    'invoices',
    'delivery_receipt_items',
    'delivery_receipt_attachments',
    'delivery_receipts',
    'warehouse_request_items',
    'warehouse_requests',
    'requisition_items',
    'requisitions',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('DROP FUNCTION IF EXISTS delivery_receipt_issues(uuid, uuid)');
}
