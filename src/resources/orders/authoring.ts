import type { Knex } from 'knex';
import { checkExternalIds } from '../../db/external-id';
import { ApiError } from '../../errors';
import type { Schema } from '../../http/handler';
import { changedReference, existingIds, missingOf } from '../../db/refs';
import type { ItemWrite, OrderWrite } from './store';
import { extPrice, extPriceIncludingTax } from './pricing';

/**
 * Order and item input (API spelling) to columns, with every reference looked up in the caller's
 * organization first (a reference that is not there is a 404 naming the field), and the derived
 * prices of items (re)computed after a write.
 */
type OrderInput = Schema<'OrderInput'>;
type OrderUpdate = Schema<'OrderUpdate'>;
type ItemInput = Schema<'ItemInput'>;
type ItemUpdate = Schema<'ItemUpdate'>;

const missingRef = (field: string, what: string, value: string) =>
  new ApiError(404, 'not-found', 'Not found', [{ message: `${field}: no ${what} matches ${value}`, field }]);

const ORDER_COLUMNS: Record<string, keyof OrderWrite | 'created_by_id'> = {
  externalId: 'external_id',
  fieldContactName: 'field_contact_name',
  fieldContactPhone: 'field_contact_phone',
  purchaseOrderNumber: 'purchase_order_number',
  needByDateDay: 'need_by_date_day',
  needByWindow: 'need_by_window',
  deliveryInstructions: 'delivery_instructions',
  distributorContactName: 'distributor_contact_name',
  distributorContactEmail: 'distributor_contact_email',
  distributorContactPhone: 'distributor_contact_phone',
  distributorContactCompany: 'distributor_contact_company',
  isVisibleToField: 'is_visible_to_field',
  notes: 'notes',
  discount: 'discount',
  shippingCost: 'shipping_cost',
  taxExempt: 'tax_exempt',
  title: 'title',
  deliveryLocationId: 'delivery_location_id',
  jobId: 'job_id',
  vendorId: 'vendor_id',
  taxCodeId: 'tax_code_id',
  createdById: 'created_by_id',
  state: 'state',
  type: 'type',
  mode: 'mode',
};

/** [field, table, what, soft-deleting table] of every single-ID reference of an order. */
const ORDER_REFS: [keyof OrderUpdate, string, string, boolean][] = [
  ['jobId', 'jobs', 'job', false],
  ['vendorId', 'vendors', 'vendor', true],
  ['deliveryLocationId', 'locations', 'location', true],
  ['taxCodeId', 'tax_codes', 'tax code', true],
  ['createdById', 'users', 'user', false],
];

async function assertExists(tx: Knex.Transaction, orgId: string, field: string, table: string, what: string, softDelete: boolean, ids: string[]) {
  if (!ids.length) return;
  const found = await existingIds(tx, table, orgId, ids, { softDelete });
  const missing = missingOf(ids, found);
  if (missing.length) throw missingRef(field, what, missing[0]);
}

/** An order's columns from `body`; `current` (an update) holds its references as stored: one left as it is is not looked up. */
export async function orderColumns(
  tx: Knex.Transaction,
  orgId: string,
  body: OrderInput | OrderUpdate,
  current?: Record<string, string | null>,
  id?: string,
): Promise<OrderWrite & { created_by_id?: string | null }> {
  const input = body as Record<string, unknown>;
  if (typeof input.externalId === 'string') await checkExternalIds(tx, 'orders', orgId, 'order', [{ field: 'body.externalId', value: input.externalId, id }]);
  for (const [field, table, what, soft] of ORDER_REFS) {
    const v = input[field];
    if (typeof v === 'string' && changedReference(v, current?.[ORDER_COLUMNS[field]])) await assertExists(tx, orgId, `body.${field}`, table, what, soft, [v]);
  }
  if (Array.isArray(input.requisitionIds))
    await assertExists(tx, orgId, 'body.requisitionIds', 'requisitions', 'requisition', true, input.requisitionIds as string[]);
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(ORDER_COLUMNS)) if (input[field] !== undefined) out[column] = input[field];
  return out as OrderWrite;
}

const ITEM_COLUMNS: Record<string, string> = {
  externalId: 'external_id',
  lineNumber: 'line_number',
  quantity: 'quantity',
  unitsOfMeasure: 'units_of_measure',
  description: 'description',
  manufacturer: 'manufacturer',
  manufacturerPartNumber: 'manufacturer_part_number',
  notes: 'notes',
  universalProductCode: 'universal_product_code',
  vendorPartNumber: 'vendor_part_number',
  needByDate: 'need_by_date',
  unitDiscount: 'unit_discount',
  unitPrice: 'unit_price',
  backorderLeadTime: 'backorder_lead_time',
  backorderQuantity: 'backorder_quantity',
  catalogId: 'catalog_id',
};

async function codeIds(tx: Knex.Transaction, orgId: string, table: string, codes: string[], softDelete: boolean): Promise<Map<string, string>> {
  if (!codes.length) return new Map();
  const q = tx(table)
    .where('organization_id', orgId)
    .whereIn('code', [...new Set(codes)])
    .select('id', 'code');
  if (softDelete) q.whereNull('deleted_at');
  return new Map((await q).map((r: { id: string; code: string }) => [r.code, r.id]));
}

/** An item's tax code as stored (deleted or not): its id and code. */
export interface HeldTaxCode {
  id: string;
  code: string;
}

/**
 * Item columns for each input (`prefix` names the body position in errors). Tax codes are codes of
 * the organization (unknown: 404); a unit code links the organization's unit of that code if any.
 * `held` (an update) is the tax code the item holds: its code given back keeps it, even deleted
 * (unless a live tax code has that code now: the code names it).
 */
export async function itemColumns(
  tx: Knex.Transaction,
  orgId: string,
  inputs: (ItemInput | ItemUpdate)[],
  prefix: (i: number) => string,
  held?: HeldTaxCode,
  /** The items being updated, by position (an update may keep its own externalId). */
  ids: string[] = [],
): Promise<Record<string, unknown>[]> {
  // An update's fields are an input's, each optional; `input[field]` reads them by ITEM_COLUMNS' names.
  const all: (Partial<ItemInput> & Record<string, unknown>)[] = inputs;
  const externalIds = all.flatMap((input, n) =>
    typeof input.externalId === 'string' ? [{ field: `${prefix(n)}.externalId`, value: input.externalId as string, id: ids[n] }] : [],
  );
  await checkExternalIds(tx, 'items', orgId, 'item', externalIds);
  const taxCodes = await codeIds(
    tx,
    orgId,
    'tax_codes',
    all.map((i) => i.taxCode).filter((c): c is string => typeof c === 'string'),
    true,
  );
  const units = await codeIds(
    tx,
    orgId,
    'units_of_measure',
    all.map((i) => i.unitsOfMeasure).filter((c): c is string => typeof c === 'string'),
    false,
  );
  const bomIds = all.map((i) => i.bomItemId).filter((v): v is string => typeof v === 'string');
  const bomFound = await existingIds(tx, 'bill_of_materials_items', orgId, bomIds, { softDelete: true });
  const reqItemIds = all.flatMap((i) => (Array.isArray(i.requisitionItemIds) ? i.requisitionItemIds : []));
  const reqFound = await existingIds(tx, 'requisition_items', orgId, reqItemIds);
  // A code names the live tax code of that code; only without one, the (deleted) one the item holds.
  if (held && !taxCodes.has(held.code)) taxCodes.set(held.code, held.id);
  return all.map((input, n) => {
    if (typeof input.taxCode === 'string' && !taxCodes.has(input.taxCode)) throw missingRef(`${prefix(n)}.taxCode`, 'tax code', input.taxCode);
    if (typeof input.bomItemId === 'string' && !bomFound.has(input.bomItemId.toLowerCase()))
      throw missingRef(`${prefix(n)}.bomItemId`, 'bill-of-materials item', input.bomItemId);
    const badReq = missingOf(input.requisitionItemIds ?? [], reqFound);
    if (badReq.length) throw missingRef(`${prefix(n)}.requisitionItemIds`, 'requisition item', badReq[0]);
    const row: Record<string, unknown> = {};
    for (const [field, column] of Object.entries(ITEM_COLUMNS)) if (input[field] !== undefined) row[column] = input[field];
    if (input.taxCode !== undefined) row.tax_code_id = input.taxCode === null ? null : taxCodes.get(input.taxCode);
    if (input.unitsOfMeasure !== undefined) row.units_of_measure_id = input.unitsOfMeasure === null ? null : (units.get(input.unitsOfMeasure) ?? null);
    return row;
  });
}

export const asItemWrite = (row: Record<string, unknown>) => row as ItemWrite;

/**
 * Recomputes extPrice and extPriceIncludingTax of the order's items (all, or the given ones) from
 * their stored inputs, the item's tax code (else the order's) and the order's tax exemption.
 * Returns the ids whose prices changed.
 */
export async function repriceItems(tx: Knex.Transaction, orgId: string, orderId: string, itemIds?: string[]): Promise<string[]> {
  const q = tx('items as i')
    .join('orders as o', (j) => j.on('o.organization_id', 'i.organization_id').andOn('o.id', 'i.order_id'))
    .leftJoin('tax_codes as it', (j) => j.on('it.organization_id', 'i.organization_id').andOn('it.id', 'i.tax_code_id'))
    .leftJoin('tax_codes as ot', (j) => j.on('ot.organization_id', 'o.organization_id').andOn('ot.id', 'o.tax_code_id'))
    .leftJoin('units_of_measure as um', (j) => j.on('um.organization_id', 'i.organization_id').andOn('um.id', 'i.units_of_measure_id'))
    .where({ 'i.organization_id': orgId, 'i.order_id': orderId })
    .select(
      'i.id',
      'i.quantity',
      'i.unit_price',
      tx.raw('i.unit_discount::float8 AS unit_discount'),
      'i.units_of_measure',
      'um.multiplier',
      'i.ext_price',
      'i.ext_price_including_tax',
      tx.raw('coalesce(it.tax_percent, ot.tax_percent)::float8 AS tax_rate'),
      tx.raw('coalesce(o.tax_exempt, false) AS tax_exempt'),
    );
  if (itemIds) q.whereIn('i.id', itemIds);
  const rows = await q;
  const changed: { id: string; ext: number | null; incl: number | null }[] = [];
  for (const r of rows) {
    const ext = extPrice({
      quantity: r.quantity,
      unitPrice: r.unit_price,
      unitDiscount: r.unit_discount,
      unitsOfMeasure: r.units_of_measure,
      multiplier: r.multiplier,
    });
    const incl = extPriceIncludingTax(ext, r.tax_rate, r.tax_exempt);
    if (ext !== r.ext_price || incl !== r.ext_price_including_tax) changed.push({ id: r.id, ext, incl });
  }
  if (changed.length) {
    await tx.raw(
      `UPDATE items i SET ext_price = u.ext, ext_price_including_tax = u.incl
         FROM unnest(?::uuid[], ?::float8[], ?::float8[]) AS u(id, ext, incl)
        WHERE i.organization_id = ? AND i.id = u.id`,
      // knex's binding types have no array with null elements; pg sends a null element as NULL.
      [changed.map((c) => c.id), changed.map((c) => c.ext), changed.map((c) => c.incl), orgId] as Knex.RawBinding[],
    );
  }
  return changed.map((c) => c.id);
}
