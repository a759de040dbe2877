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
    t.comment('Requisitions: field requests for material (API resource Requisition); soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'job_id', 'jobs', { notNullable: true, onDelete: 'RESTRICT', comment: 'API field `jobId`: the job the material is for.' });
    tenantRef(t, 'created_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `createdById`: the user who created the requisition; NULL when unknown or that user was deleted.',
    });
    tenantRef(t, 'updated_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `updatedById`: the user who changed it last (the caller of a state change); NULL when unknown.',
    });
    tenantRef(t, 'ordering_agent_id', 'users', {
      notNullable: true,
      onDelete: 'RESTRICT',
      comment: 'API field `orderingAgentId`: the purchasing agent (a user) handling the requisition.',
    });
    tenantRef(t, 'deleted_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `deletedById` (always null in responses): the user who deleted the requisition; NULL while it is live.',
    });
    tenantRef(t, 'delivery_location_id', 'locations', {
      onDelete: 'SET NULL',
      comment: 'API field `deliveryLocationId`: where to deliver; NULL when not set.',
    });
    t.text('identifier').notNullable().comment('API field `identifier`: the identifier as displayed.');
    t.text('state')
      .notNullable()
      .defaultTo('DRAFT')
      .comment('API field `state`: DRAFT, OPEN (sent to purchasing), IN_REVIEW, ACKNOWLEDGED, PARTIALLY_FULFILLED or CLOSED.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.specificType('manually_closed_at', 'timestamptz(3)').comment(
      'API field `manuallyClosedAt`: when the requisition was closed by hand (state set to CLOSED); NULL otherwise.',
    );
    t.text('need_by_date_category')
      .notNullable()
      .defaultTo('ASAP')
      .comment('API field `needByDateCategory`: ASAP, DATE (on need_by_date_day within need_by_window) or HOLD_FOR_RELEASE.');
    t.specificType('need_by_date_day', 'timestamptz(3)').comment('API field `needByDateDay`: the requested delivery day; NULL when not set.');
    t.text('need_by_window')
      .notNullable()
      .defaultTo('Anytime (7am - 5pm)')
      .comment('API field `needByWindow`: requested delivery window, a label followed by hours in parentheses.');
    t.specificType('sent_at', 'timestamptz(3)').comment('API field `sentAt`: when the requisition was sent to purchasing; NULL while not sent.');
    t.specificType('scheduled_at', 'timestamptz(3)').comment('API field `scheduledAt`: when it is scheduled to be sent; NULL when not scheduled.');
    t.text('title').comment('API field `title`: title; NULL when none.');
    t.text('vendor_contact_id').comment(
      'API field `vendorContactId`: opaque ID of the vendor contact (kept by the application) when it was sent directly to a vendor; NULL otherwise.',
    );
    t.check(`state IN ('ACKNOWLEDGED','CLOSED','DRAFT','OPEN','IN_REVIEW','PARTIALLY_FULFILLED')`);
    t.check(`need_by_date_category IN ('ASAP','DATE','HOLD_FOR_RELEASE')`);
    orderIndexes(t, ['created_at', 'need_by_date_day', 'identifier', 'updated_at', 'state', 'title']);
  });

  await knex.schema.createTable('requisition_items', (t) => {
    t.comment('Lines of requisitions (API resource RequisitionItem).');
    tenantTable(t, knex);
    tenantRef(t, 'requisition_id', 'requisitions', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `requisitionId`: the requisition.' });
    tenantRef(t, 'created_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `createdById`: the user who added the item; NULL when unknown or that user was deleted.',
    });
    tenantRef(t, 'line_item_id', 'items', {
      onDelete: 'SET NULL',
      comment: 'API field `lineItemId`: the order item it was placed on; NULL until it is on an order.',
    });
    tenantRef(t, 'purchase_order_id', 'orders', {
      onDelete: 'SET NULL',
      comment: 'API field `purchaseOrderId`: the order it was placed on; NULL until it is on an order.',
    });
    t.integer('line_number').notNullable().comment('API field `lineNumber`: position within the requisition (the default list order).');
    t.boolean('allow_substitution')
      .notNullable()
      .defaultTo(false)
      .comment('API field `allowSubstitution`: whether an equivalent product may be supplied instead.');
    t.text('description').comment('API field `description`: what is requested; NULL when none.');
    t.text('manufacturer_part_number').comment('API field `manufacturerPartNumber`: manufacturer part number; NULL when none.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.double('quantity').comment('API field `quantity`: requested quantity, in units_of_measure; NULL when not set.');
    t.double('quantity_delivered').notNullable().defaultTo(0).comment('API field `quantityDelivered`: quantity delivered so far.');
    t.text('rejection_message').comment('API field `rejectionMessage`: message of purchasing when it rejected the item; NULL when not rejected.');
    t.text('rejection_reason').comment('API field `rejectionReason`: why purchasing rejected the item; NULL when not rejected.');
    t.text('state')
      .notNullable()
      .defaultTo('UNPROCESSED')
      .comment('API field `state`: UNPROCESSED, ACKNOWLEDGED, PARTIALLY_ADDED_TO_PO, ADDED_TO_PO, ADDED_TO_WAREHOUSE_REQUEST or REJECTED.');
    t.text('units_of_measure').comment('API field `unitsOfMeasure`: unit of the quantity; NULL when none.');
    t.text('universal_product_code').comment('API field `universalProductCode`: universal product code (UPC); NULL when none.');
    t.jsonb('integration_data')
      .notNullable()
      .defaultTo('{}')
      .comment('API field `integrationData`: opaque data of the integrating system (an empty object when none).');
    t.text('catalog_id').comment('API field `catalogId`: the catalog item it was picked from; NULL when none.');
    // The quantities behind `states` (how much of the line is in each stage).
    for (const [c, key, what] of [
      ['qty_added_to_po', 'AddedToPO', 'placed on purchase orders'],
      ['qty_requested', 'Requested', 'requested by the field'],
      ['qty_rejected_by_purchasing', 'RejectedByPurchasing', 'purchasing rejected'],
      ['qty_added_to_warehouse_request', 'AddedToWarehouseRequest', 'supplied through warehouse requests'],
      ['qty_acknowledged_by_purchasing', 'AcknowledgedByPurchasing', 'purchasing acknowledged'],
    ]) {
      t.double(c).notNullable().defaultTo(0).comment(`API field \`states.${key}\`: quantity of the line ${what} (0 when none).`);
    }
    t.check(`state IN ('UNPROCESSED','ADDED_TO_PO','PARTIALLY_ADDED_TO_PO','REJECTED','ADDED_TO_WAREHOUSE_REQUEST','ACKNOWLEDGED')`);
    for (const c of ['line_number', 'created_at', 'updated_at', 'state']) t.index(['organization_id', 'requisition_id', c], `req_items_${c}_index`);
  });

  await knex.schema.createTable('warehouse_requests', (t) => {
    t.comment('Requests for material from a warehouse (API resource WarehouseRequest).');
    tenantTable(t, knex);
    tenantRef(t, 'job_id', 'jobs', { notNullable: true, onDelete: 'RESTRICT', comment: 'API field `jobId`: the job the material is for.' });
    tenantRef(t, 'location_id', 'locations', {
      notNullable: true,
      onDelete: 'RESTRICT',
      comment: 'API field `locationId`: the warehouse location the material comes from.',
    });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT', comment: 'API field `createdById`: the user who created the request.' });
    t.text('identifier').notNullable().comment('API field `identifier`: the identifier as displayed.');
    t.text('state').notNullable().defaultTo('DRAFT').comment('API field `state`: DRAFT (not yet sent), SENT or ACKNOWLEDGED (by the warehouse).');
    t.specificType('need_by_date_day', 'timestamptz(3)').notNullable().comment('API field `needByDateDay`: the day the material is needed on the job.');
    t.check(`state IN ('ACKNOWLEDGED','DRAFT','SENT')`);
    orderIndexes(t, ['created_at', 'need_by_date_day', 'state', 'identifier', 'updated_at']);
  });

  await knex.schema.createTable('warehouse_request_items', (t) => {
    t.comment('Lines of warehouse requests (API resource WarehouseRequestItem).');
    tenantTable(t, knex);
    tenantRef(t, 'warehouse_request_id', 'warehouse_requests', {
      notNullable: true,
      onDelete: 'CASCADE',
      comment: 'API field `warehouseRequestId`: the warehouse request.',
    });
    tenantRef(t, 'requisition_id', 'requisitions', {
      onDelete: 'SET NULL',
      comment: 'API field `requisitionId`: the requisition the line came from; NULL when added on the warehouse request directly.',
    });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT', comment: 'API field `createdById`: the user who added the line.' });
    t.integer('line_number').notNullable().comment('API field `lineNumber`: position within the request (the default list order).');
    t.text('state').notNullable().defaultTo('DRAFT').comment('API field `state`: DRAFT, REQUESTED, PARTIAL_PICK, PICKED, SHIPPED, UNAVAILABLE or CANCELLED.');
    t.text('description').notNullable().comment('API field `description`: what is requested.');
    t.double('quantity').comment('API field `quantity`: requested quantity, in uom; NULL when not set.');
    t.double('picked_quantity').comment('API field `pickedQuantity`: quantity picked so far; NULL before picking starts.');
    t.text('uom').notNullable().defaultTo('EA').comment('API field `uom`: unit of the quantities.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.text('upc').comment('API field `upc`: universal product code; NULL when none.');
    t.text('sku').comment('API field `sku`: stock-keeping unit of the warehouse; NULL when none.');
    t.text('mpn').comment('API field `mpn`: manufacturer part number; NULL when none.');
    t.check(`state IN ('CANCELLED','DRAFT','PARTIAL_PICK','PICKED','REQUESTED','SHIPPED','UNAVAILABLE')`);
    for (const c of ['line_number', 'created_at', 'updated_at', 'state', 'sku', 'upc', 'mpn', 'quantity', 'picked_quantity', 'created_by_id']) {
      // Explicit names: the generated ones exceed PostgreSQL's 63 characters and would collide.
      t.index(['organization_id', 'warehouse_request_id', c], `wr_items_${c}_index`);
    }
  });

  await knex.schema.createTable('delivery_receipts', (t) => {
    t.comment('Field delivery receipts (API resource DeliveryReceipt); soft-deleted, the deletion time is returned as archivedAt.');
    // Deleting a receipt sets deleted_at (returned as archivedAt) and bumps updated_at.
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'order_id', 'orders', {
      onDelete: 'SET NULL',
      comment: 'API field `purchaseOrder`: the order delivered against; NULL for a delivery without an order.',
    });
    tenantRef(t, 'warehouse_request_id', 'warehouse_requests', {
      onDelete: 'SET NULL',
      comment: 'API field `warehouseRequest`: the related warehouse request; NULL when none.',
    });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT', comment: 'API field `createdBy`: the user who created the receipt.' });
    t.text('identifier').comment('API field `identifier`: the receipt identifier; NULL when none.');
    t.text('notes').comment('API field `notes`: notes, free text of any length; NULL when none.');
    t.text('state').notNullable().defaultTo('DRAFT').comment('API field `state`: SUBMITTED (by the field) or DRAFT (submission pending).');
    t.specificType('notified_contacts', 'text[]')
      .notNullable()
      .defaultTo('{}')
      .comment('API field `notifiedContacts`: contacts notified about the delivery (e-mail addresses or names).');
    t.text('integration_state')
      .notNullable()
      .defaultTo('NOT_LINKED')
      .comment('API field `integrationState`: sync status with the integrating system, NOT_LINKED, LINKING, LINKED, OUT_OF_SYNC or ERROR.');
    t.text('integration_message').comment('API field `integrationMessage`: message about the last sync (required with ERROR); NULL when none.');
    t.specificType('integration_last_sync', 'timestamptz(3)').comment(
      'API field `integrationLastSync`: the last time integration_state became LINKED; NULL when never.',
    );
    t.check(`state IN ('SUBMITTED','DRAFT')`);
    t.check(`integration_state IN (${INTEGRATION_STATES})`);
    // notes is free text of any length: a btree on it could reject long values, so it has none.
    orderIndexes(t, ['created_at', 'updated_at', 'deleted_at', 'identifier', 'state']);
  });

  await knex.schema.createTable('delivery_receipt_attachments', (t) => {
    t.comment('Files attached to delivery receipts, e.g. packing slips and photos (API field `attachments` of a receipt).');
    tenantTable(t, knex);
    tenantRef(t, 'delivery_receipt_id', 'delivery_receipts', {
      notNullable: true,
      onDelete: 'CASCADE',
      comment: 'The delivery receipt the file is attached to.',
    });
    tenantRef(t, 'file_id', 'files', { notNullable: true, onDelete: 'CASCADE', comment: 'The attached file.' });
  });

  const zeroIssues = JSON.stringify(Object.fromEntries(ISSUE_KINDS.map((k) => [k, 0])));
  await knex.schema.createTable('delivery_receipt_items', (t) => {
    t.comment('Lines of delivery receipts (API resource DeliveryReceiptItem).');
    tenantTable(t, knex);
    tenantRef(t, 'delivery_receipt_id', 'delivery_receipts', {
      notNullable: true,
      onDelete: 'CASCADE',
      comment: 'API field `deliveryReceiptId`: the delivery receipt.',
    });
    tenantRef(t, 'item_id', 'items', { onDelete: 'SET NULL', comment: 'API field `itemId`: the order item delivered; NULL on a delivery without an order.' });
    t.text('description').notNullable().defaultTo('').comment('API field `description`: what was delivered.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.double('quantity').notNullable().defaultTo(0).comment('API field `quantity`: overall quantity of the line, as ordered.');
    t.double('quantity_received_this_receipt')
      .notNullable()
      .defaultTo(0)
      .comment('API field `quantityReceivedThisReceipt`: quantity received on this receipt.');
    t.text('units_of_measure').notNullable().defaultTo('EA').comment('API field `unitsOfMeasure`: unit of the quantities.');
    // Amount per issue kind; every kind is present and a number.
    t.jsonb('issues')
      .notNullable()
      .defaultTo(zeroIssues)
      .comment('API field `issues`: the amount per issue kind (MISSING, DAMAGED, NO_ISSUES, WRONG_ITEM, BACKORDERED), every kind present, 0 when none.');
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
    t.comment('Vendor invoices and credit memos (API resource Invoice); soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'created_by_id', 'users', { notNullable: true, onDelete: 'RESTRICT', comment: 'API field `createdById`: the user who created the invoice.' });
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'SET NULL', comment: 'API field `jobId`: the job billed; NULL when not assigned.' });
    tenantRef(t, 'vendor_id', 'vendors', { onDelete: 'SET NULL', comment: 'API field `vendorId`: the vendor who sent the invoice; NULL when not assigned.' });
    tenantRef(t, 'order_id', 'orders', { onDelete: 'SET NULL', comment: 'API field `orderId`: the purchase order billed; NULL when not matched to one.' });
    for (const [who, field, what] of [
      ['approved_by_id', 'approvedById', 'approved the invoice'],
      ['flagged_by_id', 'flaggedById', 'flagged the invoice'],
      ['paid_by_id', 'paidById', 'recorded the payment'],
      ['rejected_by_id', 'rejectedById', 'rejected the invoice'],
      ['voided_by_id', 'voidedById', 'voided the invoice'],
    ]) {
      tenantRef(t, who, 'users', {
        onDelete: 'SET NULL',
        comment: `API field \`${field}\`: the user who ${what}; NULL when nobody did or that user was deleted.`,
      });
    }
    t.text('title').comment('API field `title`: title; NULL when none.');
    t.text('invoice_number').comment('API field `invoiceNumber`: the invoice number of the vendor; NULL when unknown.');
    t.text('type').notNullable().defaultTo('INVOICE').comment('API field `type`: INVOICE (amounts owed) or CREDIT_MEMO (amounts credited).');
    t.text('category').comment('API field `category`: genContractor, material, miscellaneous or rentals; NULL when not categorized.');
    t.text('state')
      .notNullable()
      .defaultTo('INBOX')
      .comment('API field `state`: INBOX (new), PENDING (needs approval), APPROVED (for payment) or CLOSED (settled).');
    t.specificType('approved_at', 'timestamptz(3)').comment('API field `approvedAt`: when the invoice was approved; NULL when not approved.');
    t.specificType('assigned_at', 'timestamptz(3)').comment('API field `assignedAt`: when it was assigned to its current reviewer; NULL when not assigned.');
    t.specificType('due_date', 'timestamptz(3)').comment('API field `dueDate`: payment due date; NULL when unknown.');
    t.specificType('invoice_date', 'timestamptz(3)').comment('API field `invoiceDate`: issue date of the invoice; NULL when unknown.');
    t.specificType('ship_date', 'timestamptz(3)').comment('API field `shipDate`: ship date; NULL when unknown.');
    t.specificType('exceptions', 'text[]')
      .notNullable()
      .defaultTo('{}')
      .comment('API field `exceptions`: names of the fields that disagree with the order or receipts (empty when none).');
    t.boolean('flagged').notNullable().defaultTo(false).comment('API field `flagged`: whether the invoice is flagged with an issue (see flag_message).');
    t.specificType('flagged_at', 'timestamptz(3)').comment('API field `flaggedAt`: when the invoice was flagged; NULL when not flagged.');
    t.text('flag_message').comment('API field `flagMessage`: description of the flagged issue; NULL when none.');
    t.specificType('paid_at', 'timestamptz(3)').comment('API field `paidAt`: when the invoice was paid (POST /invoices/paid); NULL while unpaid.');
    t.double('payments').comment('API field `payments`: amount of payments in dollars; NULL when none recorded.');
    t.specificType('rejected_at', 'timestamptz(3)').comment('API field `rejectedAt`: when the invoice was rejected; NULL when not rejected.');
    t.text('rejected_reason').comment('API field `rejectedReason`: why it was rejected; NULL when not rejected.');
    t.text('salesperson').comment('API field `salesperson`: the salesperson of the vendor; NULL when unknown.');
    t.text('ship_via').comment('API field `shipVia`: carrier or shipping method; NULL when unknown.');
    t.text('terms').comment('API field `terms`: payment terms; NULL when unknown.');
    t.double('shipping_cost').comment('API field `shippingCostFloat`: shipping cost in dollars; NULL when none.');
    t.double('subtotal').comment('API field `subtotal`: sum of the line amounts before tax, in dollars; NULL when unknown.');
    t.double('tax').comment('API field `tax`: tax in dollars; NULL when unknown.');
    t.double('total_due').comment('API field `totalDue`: amount due in dollars (subtotal + tax + shipping); NULL when unknown.');
    t.boolean('tax_exempt').notNullable().defaultTo(false).comment('API field `taxExempt`: whether the invoice is exempt from tax.');
    t.specificType('voided_at', 'timestamptz(3)').comment('API field `voidedAt`: when the invoice was voided; NULL when not voided.');
    t.text('integration_state')
      .notNullable()
      .defaultTo('NOT_LINKED')
      .comment('API field `integrationState`: sync status with the integrating system, NOT_LINKED, LINKING, LINKED or ERROR (no OUT_OF_SYNC).');
    t.text('integration_message').comment('API field `integrationMessage`: message about the last sync (explains an ERROR); NULL when none.');
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
    t.comment('Files of invoices, the scanned document first (API field `attachments` of an invoice).');
    tenantTable(t, knex);
    tenantRef(t, 'invoice_id', 'invoices', { notNullable: true, onDelete: 'CASCADE', comment: 'The invoice the file belongs to.' });
    tenantRef(t, 'file_id', 'files', { notNullable: true, onDelete: 'CASCADE', comment: 'The attached file.' });
  });

  await knex.schema.createTable('invoice_items', (t) => {
    t.comment('Lines of invoices (API resource InvoiceItem; the bulk list GET /invoice-items reads this table alone).');
    tenantTable(t, knex);
    tenantRef(t, 'invoice_id', 'invoices', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `invoiceId`: the invoice.' });
    t.integer('line_number').notNullable().comment('API field `lineNumber`: position within the invoice.');
    t.text('description').comment('API field `description`: what was billed; NULL when none.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.double('ship_quantity').comment('API field `shipQuantity`: quantity shipped (billed); NULL when unknown.');
    t.double('extended_quantity').comment('API field `extendedQuantity` (bulk list): quantity after unit conversion, in extended_uom; NULL when none.');
    t.double('unit_price').comment('API field `unitPriceFloat`: unit price in dollars; NULL when unknown.');
    t.double('scaled_unit_price').comment('API field `scaledUnitPrice` (bulk list): unit price scaled by the unit conversion; NULL when none.');
    t.double('ext_price').comment('API field `extPriceFloat`: extended price in dollars (ship quantity x unit price); NULL when unknown.');
    t.double('ext_price_including_tax').comment('API field `extPriceFloatIncludingTax` (bulk list): extended price with tax, in dollars; NULL when unknown.');
    t.text('units_of_measure').comment('API field `unitsOfMeasure`: unit of the quantity; NULL when none.');
    t.text('requested_uom').comment('API field `requestedUOM` (bulk list): unit requested; NULL when none.');
    t.text('pricing_uom').comment('API field `pricingUOM` (bulk list): unit the price is per; NULL when none.');
    t.text('extended_uom').comment('API field `extendedUOM` (bulk list): unit of extended_quantity; NULL when none.');
    t.double('tax_rate').comment('API field `taxRate`: tax rate applied, as a fraction (0.0725 means 7.25 %); NULL when none.');
    t.boolean('has_exception').notNullable().defaultTo(false).comment('API field `hasException`: whether the line disagrees with the order or receipts.');
    t.text('manufacturer_part_number').comment('API field `manufacturerPartNumber` (bulk list): manufacturer part number; NULL when none.');
    t.text('universal_product_code').comment('API field `universalProductCode` (bulk list): universal product code (UPC); NULL when none.');
    tenantRef(t, 'tax_code_id', 'tax_codes', {
      onDelete: 'SET NULL',
      comment: 'API fields `taxCode` and `taxCodeCode`: the code of the tax code applied; NULL when none.',
    });
    tenantRef(t, 'phase_id', 'phases', {
      onDelete: 'SET NULL',
      comment: 'API fields `phaseCode` and `phaseCodeCode`: the code of the phase charged; NULL when none.',
    });
    tenantRef(t, 'cost_category_id', 'cost_categories', {
      onDelete: 'SET NULL',
      comment: 'API fields `costCategory` and `costCategoryCode`: the code of the cost category charged; NULL when none.',
    });
    tenantRef(t, 'gl_code_id', 'gl_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `glCodeCode` (bulk list): the code of the GL code charged; NULL when none.',
    });
    tenantRef(t, 'cost_type_id', 'cost_types', {
      onDelete: 'SET NULL',
      comment: 'API field `costTypeCode` (bulk list): the code of the cost type charged; NULL when none.',
    });
    tenantRef(t, 'item_code_id', 'item_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `itemCode` (bulk list; id, code, description): the item code charged; NULL when none.',
    });
    t.text('item_code_text').comment('API field `itemCodeText` (bulk list): free-form item code text; NULL when none.');
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
