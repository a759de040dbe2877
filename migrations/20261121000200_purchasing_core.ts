import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

const INTEGRATION_STATES = `'NOT_LINKED','LINKING','LINKED','OUT_OF_SYNC','ERROR'`;

export async function up(knex: Knex): Promise<void> {
  // Lookup records items point at (their own operations are not in the contract).
  for (const [table, what] of [
    ['gl_codes', 'General-ledger codes orders, items and invoice items are charged to'],
    ['cost_types', 'Cost types items and invoice items are charged to'],
    ['item_codes', 'Item codes of items and invoice items'],
  ] as const) {
    await knex.schema.createTable(table, (t) => {
      t.comment(`${what} (read through them as code briefs; no operations of their own in the API).`);
      tenantTable(t, knex);
      t.text('code').notNullable().comment('The code (API field `code` of the brief items show), unique in the organization.');
      t.text('description').comment('The description (API field `description` of the brief, where it has one); NULL when none.');
      t.unique(['organization_id', 'code']);
    });
  }

  await knex.schema.createTable('files', (t) => {
    t.comment('Stored files (API object File, read-only) attached to orders, delivery receipts and invoices.');
    tenantTable(t, knex);
    t.text('name').comment('API field `name`: file name; NULL when unknown.');
    t.text('url').comment('API field `url`: where the file can be downloaded; NULL when unknown.');
  });

  await knex.schema.createTable('orders', (t) => {
    t.comment('Purchase orders (API resource Order); soft-deleted, their line items are in items.');
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'RESTRICT', comment: 'API field `jobId`: the job the order is for; NULL when not set.' });
    tenantRef(t, 'vendor_id', 'vendors', {
      onDelete: 'RESTRICT',
      comment: 'API field `vendorId`: the vendor the order is sent to; NULL for a request for quote not yet awarded.',
    });
    tenantRef(t, 'delivery_location_id', 'locations', {
      onDelete: 'SET NULL',
      comment: 'API field `deliveryLocationId`: where the material is delivered; NULL when not set.',
    });
    tenantRef(t, 'created_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `createdById`: the user who created the order (procurement representative); NULL when that user no longer exists.',
    });
    tenantRef(t, 'updated_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `updatedById`: the user who last changed the order; NULL when unknown.',
    });
    tenantRef(t, 'gl_code_id', 'gl_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `glCode` (id and code): default GL code of the order; NULL when none.',
    });
    tenantRef(t, 'tax_code_id', 'tax_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `taxCode` (input `taxCodeId`): default tax code, whose rate applies to items without their own; NULL when none.',
    });
    // Not unique: draft or cancelled orders may share PO numbers (the id is the only identifier).
    t.text('purchase_order_number').comment(
      'API field `purchaseOrderNumber`: user-defined PO number, not unique (the id is the only identifier); NULL when none.',
    );
    t.text('title').comment('API field `title`: title of the order; NULL when none.');
    t.text('notes').comment('API field `notes`: free notes; NULL when none.');
    t.text('delivery_instructions').comment('API field `deliveryInstructions`: delivery instructions; NULL when none.');
    t.double('discount').comment('API field `discount`: discount in dollars subtracted from the order total; NULL when none.');
    t.double('shipping_cost').comment('API field `shippingCost`: shipping cost in dollars added to the order total; NULL when none.');
    t.text('field_contact_name').comment('API field `fieldContactName`: name of the contact in the field; NULL when none.');
    t.text('field_contact_phone').comment('API field `fieldContactPhone`: phone of the contact in the field; NULL when none.');
    t.boolean('flagged').notNullable().defaultTo(false).comment('API field `flagged`: whether the order is flagged with an issue (see flag_message).');
    t.specificType('flagged_at', 'timestamptz(3)').comment('API field `flaggedAt`: when the order was flagged; NULL when not flagged.');
    t.text('flag_message').comment('API field `flagMessage`: description of the issue the order is flagged with; NULL when none.');
    t.boolean('tax_exempt').comment('API field `taxExempt`: whether the order is exempt from all line-item tax; NULL when never set (priced as false).');
    t.text('integration_state')
      .notNullable()
      .defaultTo('NOT_LINKED')
      .comment('API field `integrationState`: sync status with the integrating system, NOT_LINKED, LINKING, LINKED, OUT_OF_SYNC or ERROR.');
    t.text('integration_message').comment('API field `integrationMessage`: message about the last sync (explains an ERROR); NULL when none.');
    t.specificType('integration_last_sync', 'timestamptz(3)').comment(
      'API field `integrationLastSync` (read-only): the last time integration_state became LINKED; NULL when never.',
    );
    t.text('mode')
      .notNullable()
      .defaultTo('ISSUE_PO')
      .comment('API field `mode`: ISSUE_PO (one vendor), PRE_ACKNOWLEDGED (acknowledged outside the service) or REQUEST_FOR_QUOTE (several vendors).');
    t.specificType('need_by_date_day', 'timestamptz(3)').comment('API field `needByDateDay`: the day the material is needed by; NULL when not set.');
    t.text('need_by_window')
      .notNullable()
      .defaultTo('UNSPECIFIED')
      .comment('API field `needByWindow`: delivery window on the needed-by day, ASAP, AMEarly, AM, PM, PMLate or UNSPECIFIED.');
    t.text('state')
      .notNullable()
      .defaultTo('DRAFT')
      .comment('API field `state`: DRAFT, BID_ACTIVE, BID_CANCELLED, FINALIZING (sent, not acknowledged), ACTIVE (acknowledged), CANCELLED or COMPLETE.');
    t.text('type')
      .notNullable()
      .defaultTo('STANDARD')
      .comment('API field `type`: HOLD_FOR_RELEASE (drawn through releases), MAJOR (lump sum, API `isProjectPO`) or STANDARD.');
    t.text('received_state')
      .notNullable()
      .defaultTo('NO_DELIVERIES')
      .comment('API field `receivedState`: how much has been delivered, NO_DELIVERIES, PARTIALLY_RECEIVED or FULLY_RECEIVED.');
    t.text('custom_column_value').comment('API field `customColumnValue`: value of the custom column; NULL when none.');
    t.text('off_rent_date').comment('API field `offRentDate`: off-rent date of rental equipment as entered (free text, not a date); NULL when none.');
    t.text('off_rent_number').comment('API field `offRentNumber`: off-rent tracking number of rental equipment; NULL when none.');
    t.text('distributor_contact_name').comment('API field `distributorContactName`: name of the contact at the distributor; NULL when none.');
    t.text('distributor_contact_email').comment('Write-only API field `distributorContactEmail`: e-mail of the contact at the distributor; NULL when none.');
    t.text('distributor_contact_phone').comment('Write-only API field `distributorContactPhone`: phone of the contact at the distributor; NULL when none.');
    t.text('distributor_contact_company').comment('Write-only API field `distributorContactCompany`: the distributor company; NULL when none.');
    t.boolean('is_visible_to_field').comment(
      'Write-only API field `isVisibileToField` (spelled so in the contract): whether field users see the order; NULL when never set.',
    );
    t.text('header_custom_field_value').comment(
      'API field `headerCustomFieldValue`: value of the organization custom header field; returned as null while that field is not configured and for REQUEST_FOR_QUOTE orders.',
    );
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
    t.comment('Files attached to orders (API field `attachments` of an order, objects OrderAttachment).');
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE', comment: 'The order the file is attached to.' });
    tenantRef(t, 'file_id', 'files', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `file`: the attached file.' });
    t.text('identifier').comment('API field `identifier`: what the attachment is (free text, e.g. a quote or drawing number); NULL when none.');
  });

  await knex.schema.createTable('items', (t) => {
    t.comment('Line items of purchase orders (API resource Item; the bulk list GET /items reads this table alone).');
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `orderId`: the order the item belongs to.' });
    t.integer('line_number').notNullable().comment('API field `lineNumber`: position of the item within its order.');
    t.text('description').comment('API field `description`: what is ordered; NULL when none.');
    t.double('quantity').comment('API field `quantity`: quantity ordered, in units_of_measure; NULL when not set.');
    t.double('extended_quantity').comment('API field `extendedQuantity` (read-only): quantity after unit conversion, in extended_uom; NULL when none.');
    t.text('units_of_measure').comment('API field `unitsOfMeasure`: unit code as given; prices are per hundred for C, per thousand for M, else per unit.');
    tenantRef(t, 'units_of_measure_id', 'units_of_measure', {
      onDelete: 'SET NULL',
      comment: 'API field `unitsOfMeasureId`: the unit of measure of the organization with that code, linked on write; NULL when there is none.',
    });
    t.text('requested_uom').comment('API field `requestedUOM` (read-only): unit the item was requested in; NULL when none.');
    t.text('pricing_uom').comment('API field `pricingUOM` (read-only): unit the vendor prices in; NULL when none.');
    t.text('extended_uom').comment('API field `extendedUOM` (read-only): unit of extended_quantity; NULL when none.');
    t.double('unit_price').comment('API field `unitPrice`: price in dollars per unit (per hundred for C, per thousand for M); NULL for an unpriced line.');
    t.double('scaled_unit_price').comment('API field `scaledUnitPrice` (read-only): unit price scaled to a single unit (UOM v2 feature); NULL when none.');
    // Percent, up to 13 decimal places.
    t.decimal('unit_discount', 20, 13).comment('API field `unitDiscount`: discount in percent (0 to 100, up to 13 decimal places); NULL when none.');
    t.double('ext_price').comment(
      'API field `extPrice`: extended price in dollars, computed by the service from quantity, unit price, discount and unit; NULL when unpriced.',
    );
    t.double('ext_price_including_tax').comment(
      'API field `extPriceIncludingTax`: ext_price plus tax at the item (else order) tax code rate, none when the order is tax exempt; computed by the service.',
    );
    t.specificType('backorder_lead_time', 'timestamptz(3)').comment(
      'API field `backorderLeadTime`: when the back-ordered quantity is expected; NULL when none.',
    );
    t.double('backorder_quantity').comment('API field `backorderQuantity`: quantity on backorder; NULL when none.');
    t.specificType('need_by_date', 'timestamptz(3)').comment('API field `needByDate`: when the item is needed; NULL when not set.');
    t.specificType('expected_delivery_time', 'timestamptz(3)').comment(
      'API field `expectedDeliveryTime` (read-only): when the vendor expects to deliver; NULL when unknown.',
    );
    t.text('manufacturer').comment('API field `manufacturer`: manufacturer name; NULL when none.');
    t.text('manufacturer_part_number').comment('API field `manufacturerPartNumber`: manufacturer part number; NULL when none.');
    t.text('universal_product_code').comment('API field `universalProductCode`: universal product code (UPC); NULL when none.');
    t.text('vendor_part_number').comment('API field `vendorPartNumber`: vendor part number; NULL when none.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.text('custom_column_value').comment('API field `customColumnValue`: value of the custom column; NULL when none.');
    tenantRef(t, 'item_code_id', 'item_codes', {
      onDelete: 'SET NULL',
      comment: 'API fields `itemCodeId` and `itemCode`: the item code of the line; NULL when none.',
    });
    t.text('item_code_text').comment('API field `itemCodeText`: free-form item code text; NULL when none.');
    tenantRef(t, 'cost_category_id', 'cost_categories', {
      onDelete: 'SET NULL',
      comment: 'API field `costCategory` (bulk list `costCategoryCode`): the cost category charged; NULL when none.',
    });
    tenantRef(t, 'cost_type_id', 'cost_types', {
      onDelete: 'SET NULL',
      comment: 'API field `costType` (bulk list `costTypeCode`): the cost type charged; NULL when none.',
    });
    tenantRef(t, 'gl_code_id', 'gl_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `glCode` (bulk list `glCodeCode`): the GL code charged; NULL when none.',
    });
    tenantRef(t, 'tax_code_id', 'tax_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `taxCode` (input: its code): the tax code of the line; NULL: the order tax code applies.',
    });
    tenantRef(t, 'phase_id', 'phases', { onDelete: 'SET NULL', comment: 'API field `phase` (bulk list `phaseCodeCode`): the phase charged; NULL when none.' });
    // Sub-jobs of other systems map to phases.
    tenantRef(t, 'sub_job_id', 'phases', {
      onDelete: 'SET NULL',
      comment: 'API field `subJob`: the sub-job of other systems, kept as a phase; NULL when none.',
    });
    // Inventory ledgers are outside this service's contract (fields not shown): opaque references.
    t.uuid('costs_inventory_item_ledger_entry_id').comment(
      'API fields `costsInventoryItemLedgerEntryId` and `costsInventoryItemLedgerEntry`: opaque ID of the inventory ledger entry the cost is booked to; NULL when none.',
    );
    t.uuid('destination_inventory_item_ledger_id').comment(
      'API field `destinationInventoryItemLedger`: opaque ID of the inventory ledger the item is received into; NULL when none.',
    );
    t.text('catalog_id').comment('Write-only API field `catalogId`: the catalog item the line was picked from; NULL when none.');
    orderIndexes(t, ['created_at', 'updated_at', 'need_by_date', 'backorder_lead_time', 'universal_product_code', 'vendor_part_number']);
    t.index(['organization_id', 'order_id', 'line_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['items', 'order_attachments', 'orders', 'files', 'item_codes', 'cost_types', 'gl_codes']) {
    await knex.schema.dropTableIfExists(table);
  }
}
