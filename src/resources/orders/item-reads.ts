/** An order's items as their reads return them: the items operations (src/resources/items) and the order's own reads and versions use them. */
import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { Columns, col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, allJson, bulkPageJson, oneByIdJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json, JsonStream } from '../../db/json';
import { glCodeBrief, taxCodeBrief } from './queries';
import type { HeldTaxCode } from './authoring';

type Item = Schema<'Item'>;
type BulkItem = Schema<'BulkItem'>;
type BulkItemPage = Schema<'BulkItemPage'>;

const codeBrief = (alias: string) =>
  `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'code', ${alias}.code, 'description', ${alias}.description) END`;
const idBrief = (sql: string) => `CASE WHEN ${sql} IS NULL THEN NULL ELSE json_build_object('id', ${sql}) END`;

/** The item's own fields (single and bulk bodies share them); items of deleted orders are hidden. */
const ownColumns = (): Columns => ({
  id: idCol('i.id'),
  lineNumber: col('i.line_number'),
  orderId: idCol('i.order_id'),
  externalId: col('i.external_id'),
  description: col('i.description'),
  quantity: col('i.quantity'),
  extendedQuantity: col('i.extended_quantity'),
  unitsOfMeasure: col('i.units_of_measure'),
  unitsOfMeasureId: col('i.units_of_measure_id'),
  requestedUOM: col('i.requested_uom'),
  pricingUOM: col('i.pricing_uom'),
  extendedUOM: col('i.extended_uom'),
  unitPrice: col('i.unit_price'),
  scaledUnitPrice: col('i.scaled_unit_price'),
  unitDiscount: expr('i.unit_discount::float8'),
  extPrice: col('i.ext_price'),
  extPriceIncludingTax: col('i.ext_price_including_tax'),
  backorderLeadTime: tsCol('i.backorder_lead_time'),
  backorderQuantity: col('i.backorder_quantity'),
  needByDate: tsCol('i.need_by_date'),
  expectedDeliveryTime: tsCol('i.expected_delivery_time'),
  manufacturer: col('i.manufacturer'),
  manufacturerPartNumber: col('i.manufacturer_part_number'),
  universalProductCode: col('i.universal_product_code'),
  vendorPartNumber: col('i.vendor_part_number'),
  notes: col('i.notes'),
  customColumnValue: col('i.custom_column_value'),
  itemCode: expr(codeBrief('iic')),
  itemCodeId: col('i.item_code_id'),
  itemCodeText: col('i.item_code_text'),
});

const joins = (q: Knex.QueryBuilder) => {
  const on = (table: string, alias: string, column: string) =>
    q.leftJoin(`${table} as ${alias}`, (j) => j.on(`${alias}.organization_id`, 'i.organization_id').andOn(`${alias}.id`, `i.${column}`));
  // Items of a deleted order are hidden: the order's deletion is copied onto its items by triggers
  // (migrations/20261124070000_item_parent_facts.ts), so no list joins the orders.
  q.whereRaw('NOT i.order_deleted');
  on('item_codes', 'iic', 'item_code_id');
  on('cost_categories', 'icc', 'cost_category_id');
  on('cost_types', 'ict', 'cost_type_id');
  on('gl_codes', 'igl', 'gl_code_id');
  on('tax_codes', 'itx', 'tax_code_id');
  on('phases', 'iph', 'phase_id');
  on('phases', 'isj', 'sub_job_id');
};

export const items: ResourceDef = {
  table: 'items',
  alias: 'i',
  joins,
  columns: {
    ...ownColumns(),
    costCategory: expr(codeBrief('icc')),
    costType: expr(codeBrief('ict')),
    glCode: expr(glCodeBrief('igl')),
    taxCode: expr(taxCodeBrief('itx')),
    phase: expr(codeBrief('iph')),
    subJob: expr(codeBrief('isj')),
    costsInventoryItemLedgerEntry: expr(idBrief('i.costs_inventory_item_ledger_entry_id')),
    costsInventoryItemLedgerEntryId: col('i.costs_inventory_item_ledger_entry_id'),
    destinationInventoryItemLedger: expr(idBrief('i.destination_inventory_item_ledger_id')),
    createdAt: tsCol('i.created_at'),
    updatedAt: tsCol('i.updated_at'),
  },
};

export const bulkItems: ResourceDef = {
  table: 'items',
  alias: 'i',
  joins,
  liveCount: 'items',
  columns: {
    ...ownColumns(),
    jobId: idCol('i.order_job_id'),
    vendorId: idCol('i.order_vendor_id'),
    phaseCodeCode: col('iph.code'),
    costCategoryCode: col('icc.code'),
    glCodeCode: col('igl.code'),
    taxCodeCode: col('itx.code'),
    costTypeCode: col('ict.code'),
    costsInventoryItemLedgerEntryId: col('i.costs_inventory_item_ledger_entry_id'),
    createdAt: tsCol('i.created_at'),
    updatedAt: tsCol('i.updated_at'),
  },
};

export const getItem = (db: Queryable, orgId: string, id: string): Promise<Json<Item> | undefined> => oneByIdJson<Item>(db, items, orgId, id);

/** A bulk page and the size of the whole filtered set, in one statement. */
export const listBulkItems = (db: Queryable, orgId: string, params: ListParams & { cursor?: string }): Promise<JsonStream<BulkItemPage>> =>
  bulkPageJson<BulkItem>(db, bulkItems, orgId, params) as Promise<JsonStream<BulkItemPage>>;

/** The given items of the organization (live orders only), by line number. */
export const itemsByIds = (db: Queryable, orgId: string, ids: string[]): Promise<Json<Item[]>> =>
  allJson<Item>(db, items, scoped(db, items, orgId).whereRaw('i.id = ANY(?::uuid[])', [ids]), 'i.line_number, i.id');

/** Every item of the order, by line number. */
export const itemsOfOrder = (db: Queryable, orgId: string, orderId: string): Promise<Json<Item[]>> =>
  allJson<Item>(db, items, scoped(db, items, orgId).where('i.order_id', orderId), 'i.line_number, i.id');

/** The tax code the item holds, deleted or not (what writing its code back keeps), or undefined. */
export async function heldTaxCode(db: Queryable, orgId: string, itemId: string): Promise<HeldTaxCode | undefined> {
  return db('items as i')
    .join('tax_codes as tc', (j) => j.on('tc.organization_id', 'i.organization_id').andOn('tc.id', 'i.tax_code_id'))
    .where({ 'i.organization_id': orgId, 'i.id': itemId })
    .first('tc.id', 'tc.code');
}
