import type { Queryable } from '../../db/knex';
import { col, expr, idCol, isUuid, tsCol } from '../../db/columns';
import { ResourceDef, oneByIdJson, oneJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

type Order = Schema<'Order'>;

/** `{id, code}` of a GL code or null (orders and items). */
export const glCodeBrief = (alias: string) => `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'code', ${alias}.code) END`;
/** `{id, code, taxPercent}` of a tax code or null (orders and items). */
export const taxCodeBrief = (alias: string) =>
  `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'code', ${alias}.code, 'taxPercent', ${alias}.tax_percent) END`;

const ATTACHMENTS = `(SELECT coalesce(json_agg(json_build_object(
    'id', oa.id, 'createdAt', api_ts(oa.created_at), 'updatedAt', api_ts(oa.updated_at), 'identifier', oa.identifier,
    'file', json_build_object('id', f.id, 'name', f.name, 'url', f.url, 'createdAt', api_ts(f.created_at), 'updatedAt', api_ts(f.updated_at))
  ) ORDER BY oa.created_at, oa.id), '[]'::json)
  FROM order_attachments oa JOIN files f ON f.organization_id = oa.organization_id AND f.id = oa.file_id
  WHERE oa.organization_id = o.organization_id AND oa.order_id = o.id)`;

export const orders: ResourceDef = {
  table: 'orders',
  alias: 'o',
  softDelete: true,
  joins: (q) =>
    q
      .join('organizations as org', 'org.id', 'o.organization_id')
      .leftJoin('gl_codes as ogl', (j) => j.on('ogl.organization_id', 'o.organization_id').andOn('ogl.id', 'o.gl_code_id'))
      .leftJoin('tax_codes as otx', (j) => j.on('otx.organization_id', 'o.organization_id').andOn('otx.id', 'o.tax_code_id')),
  columns: {
    id: idCol('o.id'),
    versionNumber: col('o.version'),
    externalId: col('o.external_id'),
    createdAt: tsCol('o.created_at'),
    updatedAt: tsCol('o.updated_at'),
    createdById: col('o.created_by_id'),
    updatedById: col('o.updated_by_id'),
    jobId: col('o.job_id'),
    vendorId: col('o.vendor_id'),
    deliveryLocationId: col('o.delivery_location_id'),
    deliveryInstructions: col('o.delivery_instructions'),
    discount: col('o.discount'),
    fieldContactName: col('o.field_contact_name'),
    fieldContactPhone: col('o.field_contact_phone'),
    flagged: col('o.flagged'),
    flaggedAt: tsCol('o.flagged_at'),
    flagMessage: col('o.flag_message'),
    glCode: expr(glCodeBrief('ogl')),
    integrationLastSync: tsCol('o.integration_last_sync'),
    integrationMessage: col('o.integration_message'),
    integrationState: col('o.integration_state'),
    mode: col('o.mode'),
    needByDateDay: tsCol('o.need_by_date_day'),
    needByWindow: col('o.need_by_window'),
    notes: col('o.notes'),
    purchaseOrderNumber: col('o.purchase_order_number'),
    shippingCost: col('o.shipping_cost'),
    state: col('o.state'),
    taxCode: expr(taxCodeBrief('otx')),
    attachments: expr(ATTACHMENTS),
    // Filtered as stored: an order whose taxExempt was never set (null) matches neither true nor
    // false (as for invoices), which is how the response shows it.
    taxExempt: col('o.tax_exempt'),
    type: col('o.type'),
    receivedState: col('o.received_state'),
    customColumnValue: col('o.custom_column_value'),
    title: col('o.title'),
    offRentDate: col('o.off_rent_date'),
    offRentNumber: col('o.off_rent_number'),
    distributorContactName: col('o.distributor_contact_name'),
    headerCustomFieldValue: expr(
      `CASE WHEN o.mode = 'REQUEST_FOR_QUOTE' OR org.header_custom_field_name IS NULL THEN NULL ELSE o.header_custom_field_value END`,
    ),
  },
};

/** The orders table alone: its joins only serve the columns, so whether an order exists needs none. */
export const orderRows: ResourceDef = { ...orders, joins: undefined };

export const getOrder = (db: Queryable, orgId: string, id: string): Promise<Json<Order> | undefined> => oneByIdJson<Order>(db, orders, orgId, id);

// Whitespace, - / . _ # and case do not matter to the fuzzy PO number match.
const normalizedPo = (sql: string) => `regexp_replace(lower(${sql}), '[[:space:]/#._-]', '', 'g')`;
export const LOOKBACK_DAYS = 180;

/**
 * The buyer's order a seller asks about: sent (not a draft) to one of the buyer's vendors linked
 * to the seller organization, updated within the lookback, matched by exact PO number or else
 * fuzzily; the exact match first, then the most recently updated.
 */
export async function findSellerOrder(db: Queryable, sellerOrgId: string, buyerOrgId: string, poNumber: string): Promise<Json<Order> | undefined> {
  if (!isUuid(buyerOrgId)) return undefined;
  const q = scoped(db, orders, buyerOrgId)
    .join('vendors as sv', (j) => j.on('sv.organization_id', 'o.organization_id').andOn('sv.id', 'o.vendor_id'))
    .where('sv.seller_organization_id', sellerOrgId)
    .whereNot('o.state', 'DRAFT')
    .whereRaw(`o.updated_at >= now() - make_interval(days => ?)`, [LOOKBACK_DAYS])
    .whereRaw(`(o.purchase_order_number = ? OR (${normalizedPo('o.purchase_order_number')} = ${normalizedPo('?')} AND ${normalizedPo('?')} <> ''))`, [
      poNumber,
      poNumber,
      poNumber,
    ])
    .orderByRaw('(o.purchase_order_number = ?) DESC, o.updated_at DESC, o.id DESC', [poNumber]);
  return oneJson<Order>(db, orders, q);
}
