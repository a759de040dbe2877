import type { Queryable } from '../../db/knex';

/**
 * An order version as the change-order diffs see it: the OrderDiff keys of the order and the
 * ItemDiff keys of every line item, in the API's spelling (`taxCodId` included), built in SQL.
 */
export type DiffValues = Record<string, unknown>;

export interface OrderSnapshot {
  order: DiffValues;
  items: DiffValues[];
}

/** A line's total: its extPrice, else quantity x unitPrice x (1 - unitDiscount/100) / pricePerFactor. */
const LINE_TOTAL = `coalesce(i.ext_price::numeric,
  coalesce(i.quantity::numeric, 0) * coalesce(i.unit_price::numeric, 0) * (1 - coalesce(i.unit_discount, 0) / 100)
  / (CASE i.units_of_measure WHEN 'M' THEN 1000 WHEN 'C' THEN 100 ELSE 1 END))`;

const ORDER_DIFF = `json_build_object(
  'id', o.id,
  'createdAt', api_ts(o.created_at),
  'customColumnValue', o.custom_column_value,
  'deliveryInstructions', o.delivery_instructions,
  'deliveryLocationId', o.delivery_location_id,
  'discount', o.discount,
  'fieldContactName', o.field_contact_name,
  'fieldContactPhone', o.field_contact_phone,
  'flagged', o.flagged,
  'flaggedAt', api_ts(o.flagged_at),
  'flagMessage', o.flag_message,
  'glCodeId', o.gl_code_id,
  'integrationLastSync', api_ts(o.integration_last_sync),
  'integrationState', o.integration_state,
  'jobId', o.job_id,
  'mode', o.mode,
  'needByDateDay', api_ts(o.need_by_date_day),
  'needByWindow', o.need_by_window,
  'notes', o.notes,
  'purchaseOrderNumber', o.purchase_order_number,
  'receivedState', o.received_state,
  'shippingCost', o.shipping_cost,
  'state', o.state,
  'taxCodeId', o.tax_code_id,
  'taxExempt', o.tax_exempt,
  'total', round(coalesce((SELECT sum(${LINE_TOTAL}) FROM items i WHERE i.organization_id = o.organization_id AND i.order_id = o.id), 0)
    - coalesce(o.discount::numeric, 0) + coalesce(o.shipping_cost::numeric, 0), 2),
  'updatedAt', api_ts(o.updated_at),
  'type', o.type,
  'vendorId', o.vendor_id)`;

const ITEM_DIFF = `json_build_object(
  'id', i.id,
  'backorderLeadTime', api_ts(i.backorder_lead_time),
  'backorderQuantity', i.backorder_quantity,
  'costCategory', cc.code,
  'createdAt', api_ts(i.created_at),
  'customColumnValue', i.custom_column_value,
  'description', i.description,
  'extPrice', i.ext_price,
  'glCode', gl.code,
  'glCodeId', i.gl_code_id,
  'itemCodeId', i.item_code_id,
  'lineNumber', i.line_number,
  'manufacturer', i.manufacturer,
  'manufacturerPartNumber', i.manufacturer_part_number,
  'needByDate', api_ts(i.need_by_date),
  'notes', i.notes,
  'phase', ph.code,
  'phaseId', i.phase_id,
  'quantity', i.quantity,
  'taxCode', tc.code,
  'taxCodId', i.tax_code_id,
  'taxRate', tc.tax_percent,
  'unitDiscount', i.unit_discount,
  'unitPrice', i.unit_price,
  'unitsOfMeasure', i.units_of_measure,
  'unitsOfMeasureId', i.units_of_measure_id,
  'universalProductCode', i.universal_product_code,
  'updatedAt', api_ts(i.updated_at),
  'vendorPartNumber', i.vendor_part_number)`;

const joinOn = (alias: string, table: string, column: string) =>
  `LEFT JOIN ${table} ${alias} ON ${alias}.organization_id = i.organization_id AND ${alias}.id = i.${column}`;

/** The order's current version, in one statement; undefined when the order does not exist. */
export async function snapshotOrder(db: Queryable, orgId: string, orderId: string): Promise<OrderSnapshot | undefined> {
  const result = await db.raw(
    `SELECT ${ORDER_DIFF} AS "order",
       (SELECT coalesce(json_agg(${ITEM_DIFF} ORDER BY i.line_number, i.id), '[]'::json)
          FROM items i ${joinOn('cc', 'cost_categories', 'cost_category_id')} ${joinOn('gl', 'gl_codes', 'gl_code_id')}
          ${joinOn('ph', 'phases', 'phase_id')} ${joinOn('tc', 'tax_codes', 'tax_code_id')}
         WHERE i.organization_id = o.organization_id AND i.order_id = o.id) AS items
     FROM orders o WHERE o.organization_id = ? AND o.id = ?`,
    [orgId, orderId],
  );
  const row = result.rows[0];
  return row ? { order: row.order, items: row.items } : undefined;
}
