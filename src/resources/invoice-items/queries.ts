import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { Columns, col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, bulkPageJson } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { JsonStream } from '../../db/json';

type InvoiceItemPage = Schema<'InvoiceItemPage'>;

/** Lookups an item points at; the codes are returned as strings. */
function joinLookups(q: Knex.QueryBuilder): void {
  for (const [table, alias, column] of [
    ['tax_codes', 'tc', 'tax_code_id'],
    ['phases', 'ph', 'phase_id'],
    ['cost_categories', 'cc', 'cost_category_id'],
    ['gl_codes', 'gl', 'gl_code_id'],
    ['cost_types', 'ct', 'cost_type_id'],
    ['item_codes', 'ic', 'item_code_id'],
  ]) {
    q.leftJoin(`${table} as ${alias}`, (j) => j.on(`${alias}.organization_id`, 'ii.organization_id').andOn(`${alias}.id`, `ii.${column}`));
  }
}

const itemColumns: Columns = {
  id: idCol('ii.id'),
  invoiceId: idCol('ii.invoice_id'),
  lineNumber: col('ii.line_number'),
  createdAt: tsCol('ii.created_at'),
  updatedAt: tsCol('ii.updated_at'),
  description: col('ii.description'),
  notes: col('ii.notes'),
  shipQuantity: expr('ii.ship_quantity'),
  unitPriceFloat: expr('ii.unit_price'),
  extPriceFloat: expr('ii.ext_price'),
  unitsOfMeasure: expr('ii.units_of_measure'),
  taxCode: expr('tc.code'),
  taxRate: expr('ii.tax_rate'),
  phaseCode: expr('ph.code'),
  costCategory: expr('cc.code'),
  hasException: col('ii.has_exception'),
};

export const invoiceItems: ResourceDef = {
  table: 'invoice_items',
  alias: 'ii',
  columns: itemColumns,
  joins: joinLookups,
};

/** The bulk form: flattened codes, and the job and vendor of the (live) parent invoice, as copied onto the item. */
export const bulkInvoiceItems: ResourceDef = {
  table: 'invoice_items',
  alias: 'ii',
  columns: {
    ...itemColumns,
    manufacturerPartNumber: expr('ii.manufacturer_part_number'),
    universalProductCode: expr('ii.universal_product_code'),
    extPriceFloatIncludingTax: expr('ii.ext_price_including_tax'),
    extendedQuantity: expr('ii.extended_quantity'),
    requestedUOM: expr('ii.requested_uom'),
    pricingUOM: expr('ii.pricing_uom'),
    extendedUOM: expr('ii.extended_uom'),
    phaseCodeCode: expr('ph.code'),
    costCategoryCode: expr('cc.code'),
    glCodeCode: expr('gl.code'),
    taxCodeCode: expr('tc.code'),
    costTypeCode: expr('ct.code'),
    jobId: idCol('ii.invoice_job_id'),
    vendorId: idCol('ii.invoice_vendor_id'),
    itemCode: expr(`CASE WHEN ic.id IS NULL THEN NULL ELSE json_build_object('id', ic.id, 'code', ic.code, 'description', ic.description) END`),
    scaledUnitPrice: expr('ii.scaled_unit_price'),
    itemCodeText: expr('ii.item_code_text'),
  },
  joins: (q) => {
    // The invoice's deletion, job and vendor are copied onto its items by triggers
    // (migrations/20261124070000_item_parent_facts.ts): the bulk list reads one table.
    q.whereRaw('NOT ii.invoice_deleted');
    joinLookups(q);
  },
  liveCount: 'invoice_items',
};

/** One page and the size of the whole filtered set, in one statement. */
export const bulkInvoiceItemPage = (db: Queryable, orgId: string, params: ListParams & { cursor?: string }): Promise<JsonStream<InvoiceItemPage>> =>
  bulkPageJson(db, bulkInvoiceItems, orgId, params) as Promise<JsonStream<InvoiceItemPage>>;
