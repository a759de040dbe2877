import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ResourceDef, allJson, pageWithTotalJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json, JsonStream } from '../../db/json';

type Release = Schema<'Release'>;
type ReleasePage = Schema<'ReleasePage'>;

/**
 * A release item's cost, computed at request time in exact numeric arithmetic (not float):
 * round(quantityReleased x unitPrice x (1 - unitDiscount/100) / pricePerFactor, 2), with
 * pricePerFactor 1000 for unit M, 100 for unit C and 1 otherwise; an unpriced line costs 0.
 * `ri` is the release item, `i` its order line item.
 */
export const RELEASE_ITEM_COST = `round(
  ri.quantity_released
  * coalesce(i.unit_price::numeric, 0)
  * (1 - coalesce(i.unit_discount, 0) / 100)
  / (CASE i.units_of_measure WHEN 'M' THEN 1000 WHEN 'C' THEN 100 ELSE 1 END),
  2)`;

const ITEMS_OF_RELEASE = `FROM release_items ri
  JOIN items i ON i.organization_id = ri.organization_id AND i.id = ri.item_id
  CROSS JOIN LATERAL (SELECT ${RELEASE_ITEM_COST} AS total) cost
  WHERE ri.organization_id = r.organization_id AND ri.release_id = r.id`;

/**
 * A release's items and its total cost, in one pass over its items (`rx.items`, `rx.total`): two
 * subqueries, one for each, read every release's items twice. A lateral join, so a count of
 * releases (a list's total) leaves it out: one row per release whatever it holds, none of its
 * columns used, and PostgreSQL removes such a join.
 */
const RELEASE_ITEMS_AND_TOTAL = `SELECT coalesce(sum(cost.total), 0) AS total, coalesce(json_agg(json_build_object(
        'id', ri.id,
        'releaseId', ri.release_id,
        'lineItemId', ri.item_id,
        'requisitionItemId', ri.requisition_item_id,
        'quantityReleased', ri.quantity_released,
        'backorderQuantity', ri.backorder_quantity,
        'totalCost', cost.total,
        'lineItem', json_build_object('id', i.id, 'description', i.description, 'unitPrice', coalesce(i.unit_price, 0), 'extPrice', cost.total),
        'createdAt', api_ts(ri.created_at),
        'updatedAt', api_ts(ri.updated_at)
      ) ORDER BY i.line_number, ri.created_at, ri.id), '[]'::json) AS items ${ITEMS_OF_RELEASE}`;

export const releases: ResourceDef = {
  table: 'releases',
  alias: 'r',
  columns: {
    id: idCol('r.id'),
    orderId: idCol('r.order_id'),
    purchaseOrderNumber: col('o.purchase_order_number'),
    releaseNumber: col('r.release_number'),
    needByDateDay: tsCol('r.need_by_date_day'),
    needByWindow: col('r.need_by_window'),
    notes: col('r.notes'),
    additionalNotes: col('r.additional_notes'),
    cancelledAt: tsCol('r.cancelled_at'),
    cancelledReason: col('r.cancelled_reason'),
    totalCost: expr('rx.total'),
    deliveryLocation: expr(`CASE WHEN loc.id IS NULL THEN NULL ELSE json_build_object('id', loc.id, 'name', loc.name) END`),
    releaseItems: expr('rx.items'),
    createdAt: tsCol('r.created_at'),
    updatedAt: tsCol('r.updated_at'),
    createdById: idCol('r.created_by_id'),
  },
  // Releases of deleted orders do not exist for the API.
  joins: (q) =>
    q
      .join({ o: 'orders' }, (j) => j.on('o.organization_id', 'r.organization_id').andOn('o.id', 'r.order_id'))
      .whereNull('o.deleted_at')
      .leftJoin({ loc: 'locations' }, (j) => j.on('loc.organization_id', 'r.organization_id').andOn('loc.id', 'r.delivery_location_id'))
      .joinRaw(`LEFT JOIN LATERAL (${RELEASE_ITEMS_AND_TOTAL}) rx ON true`),
};

const NEWEST_FIRST = 'r.created_at DESC, r.id DESC';

function onlyActive(q: Knex.QueryBuilder, includeCancelled: boolean): Knex.QueryBuilder {
  return includeCancelled ? q : q.whereNull('r.cancelled_at');
}

export const listOrderReleases = (db: Queryable, orgId: string, orderId: string, includeCancelled: boolean): Promise<Json<Release[]>> =>
  allJson<Release>(db, releases, onlyActive(scoped(db, releases, orgId), includeCancelled).where('r.order_id', orderId), NEWEST_FIRST);

export interface ReleaseQuery {
  orderId?: string;
  /** Inclusive bounds on need_by_date_day. */
  from?: Date;
  to?: Date;
  includeCancelled: boolean;
  limit: number;
  offset: number;
}

/** One page and the total of the whole filtered set, in one statement. */
export async function listReleases(db: Queryable, orgId: string, p: ReleaseQuery): Promise<JsonStream<ReleasePage>> {
  const filtered = onlyActive(scoped(db, releases, orgId), p.includeCancelled);
  if (p.orderId !== undefined) filtered.where('r.order_id', p.orderId);
  if (p.from) filtered.where('r.need_by_date_day', '>=', p.from);
  if (p.to) filtered.where('r.need_by_date_day', '<=', p.to);
  return pageWithTotalJson(db, releases, filtered, { limit: p.limit, offset: p.offset, order: (q) => q.orderByRaw(NEWEST_FIRST) }) as Promise<
    JsonStream<ReleasePage>
  >;
}
