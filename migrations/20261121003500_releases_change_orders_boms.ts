import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

const INTEGRATION_STATES = `'NOT_LINKED','LINKING','LINKED','OUT_OF_SYNC','ERROR'`;

export async function up(knex: Knex): Promise<void> {
  // Versions of an order after the initial one (version 0 is the order itself). The diffs are
  // stored exactly as the API returns them (computed once, when the version is recorded).
  await knex.schema.createTable('change_orders', (t) => {
    t.comment('Change orders (API resource ChangeOrder): the versions of a purchase order after the initial one, with their diffs.');
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `orderId`: the order this is a version of.' });
    tenantRef(t, 'created_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `createdById`: the user who made the change order; NULL when unknown or that user was deleted.',
    });
    t.integer('version_number')
      .notNullable()
      .comment('API field `versionNumber`: the order version this change order creates, 1 for the first (the initial order is version 0).');
    t.text('label').comment('API field `label`: label; NULL when none.');
    t.text('note').comment('API field `note`: note; NULL when none.');
    t.boolean('draft')
      .notNullable()
      .defaultTo(false)
      .comment('API field `draft`: true until the change order is completed in the application; lists leave drafts out unless asked.');
    t.jsonb('modified_order_values')
      .notNullable()
      .defaultTo('{}')
      .comment('API field `modifiedOrderValues`: the changed OrderDiff keys with their new values (null: deleted), as returned.');
    t.jsonb('added_items').notNullable().defaultTo('[]').comment('API field `addedItems`: the line items added, with every ItemDiff key, as returned.');
    t.jsonb('deleted_items')
      .notNullable()
      .defaultTo('[]')
      .comment('API field `deletedItems`: the line items deleted, with every ItemDiff key (values before deletion), as returned.');
    t.jsonb('modified_items')
      .notNullable()
      .defaultTo('[]')
      .comment('API field `modifiedItems`: the line items modified, each with its id, lineNumber, timestamps and changed values only, as returned.');
    t.text('integration_state')
      .notNullable()
      .defaultTo('NOT_LINKED')
      .comment('API field `integrationState`: sync status with the integrating system, NOT_LINKED, LINKING, LINKED, OUT_OF_SYNC or ERROR.');
    t.text('integration_message').comment(
      'API field `integrationMessage`: the last message of the integrating system about this change order; NULL when none.',
    );
    t.check(`integration_state IN (${INTEGRATION_STATES})`);
    t.check('version_number >= 1');
    t.unique(['organization_id', 'order_id', 'version_number']);
    orderIndexes(t, ['created_at', 'updated_at']);
    t.index(['organization_id', 'draft', 'created_at', 'id']);
  });

  // Scheduled draws against hold-for-release orders. Costs are not stored: they are computed from
  // the order line items at request time.
  await knex.schema.createTable('releases', (t) => {
    t.comment('Releases (API resource Release): scheduled material draws against hold-for-release orders; costs are computed when read.');
    tenantTable(t, knex);
    tenantRef(t, 'order_id', 'orders', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `orderId`: the hold-for-release order drawn from.' });
    tenantRef(t, 'delivery_location_id', 'locations', {
      onDelete: 'SET NULL',
      comment: 'API field `deliveryLocation` (its id and name): where to deliver; NULL when not set.',
    });
    tenantRef(t, 'created_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `createdById`: the user who scheduled the release; NULL when unknown or that user was deleted.',
    });
    t.text('release_number').notNullable().comment('API field `releaseNumber`: human-readable number, not guaranteed unique.');
    t.specificType('need_by_date_day', 'timestamptz(3)').comment('API field `needByDateDay`: the day the material is needed; NULL when not set.');
    t.text('need_by_window').comment('API field `needByWindow`: delivery window within the day (e.g. AM, PMLate); NULL when not set.');
    t.text('notes').comment('API field `notes`: notes; NULL when none.');
    t.text('additional_notes').comment('API field `additionalNotes`: additional notes; NULL when none.');
    t.specificType('cancelled_at', 'timestamptz(3)').comment('API field `cancelledAt`: when the release was cancelled; NULL for an active release.');
    t.text('cancelled_reason').comment('API field `cancelledReason`: why the release was cancelled; NULL when not cancelled or no reason was given.');
    orderIndexes(t, ['created_at', 'need_by_date_day']);
    t.index(['organization_id', 'order_id', 'created_at']);
  });

  await knex.schema.createTable('release_items', (t) => {
    t.comment('Quantities a release draws from order line items (API field `releaseItems` of a release, objects ReleaseItem).');
    tenantTable(t, knex);
    tenantRef(t, 'release_id', 'releases', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `releaseId`: the release.' });
    tenantRef(t, 'item_id', 'items', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `lineItemId`: the order line item released from.' });
    // Requisitions are another area's table; kept as an opaque reference.
    t.uuid('requisition_item_id').comment(
      'API field `requisitionItemId`: the requisition item that asked for the material (opaque, not a foreign key); NULL when none.',
    );
    t.decimal('quantity_released').notNullable().comment('API field `quantityReleased`: quantity released, in the unit of the line item.');
    t.decimal('backorder_quantity').notNullable().defaultTo(0).comment('API field `backorderQuantity`: quantity on backorder; 0 when none.');
  });

  // One bill of materials per job.
  await knex.schema.createTable('bills_of_materials', (t) => {
    t.comment('Bills of materials (API resource BillOfMaterials), at most one per job.');
    tenantTable(t, knex);
    tenantRef(t, 'job_id', 'jobs', { notNullable: true, onDelete: 'CASCADE', comment: 'API field `jobId`: the job, which has no other bill of materials.' });
    t.unique(['organization_id', 'job_id']);
  });

  await knex.schema.createTable('bill_of_materials_items', (t) => {
    t.comment('Estimated material lines of bills of materials (API resource BillOfMaterialsItem); soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    tenantRef(t, 'bill_of_materials_id', 'bills_of_materials', {
      notNullable: true,
      onDelete: 'CASCADE',
      comment: 'API field `billOfMaterialsId`: the bill of materials the line belongs to.',
    });
    t.text('catalog_id').comment('API field `catalogId`: the catalog item the line was picked from; NULL when none.');
    t.text('description').notNullable().comment('API field `description`: what the material is.');
    t.decimal('estimated_quantity').notNullable().comment('API field `estimatedQuantity`: estimated quantity, a whole number >= 0.');
    t.text('mpn').comment('API field `mpn`: manufacturer part number; NULL when none.');
    t.text('unit_of_measure')
      .defaultTo('EA')
      .comment('API field `unitOfMeasure`: unit of the quantity (EA unless another was given); NULL when an update cleared it.');
    t.decimal('unit_price').comment('API field `unitPrice`: estimated unit price in dollars, >= 0; NULL when not estimated.');
    t.text('upc').comment('API field `upc`: universal product code; NULL when none.');
    // [{structureType, value}], at most one entry per structureType.
    t.jsonb('work_breakdown_structure_values')
      .notNullable()
      .defaultTo('[]')
      .comment('API field `workBreakdownStructureValues`: array of {structureType, value}, at most one per structureType (e.g. Floor, Phase Code).');
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
