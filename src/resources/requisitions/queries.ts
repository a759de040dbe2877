import type { Queryable } from '../../db/knex';
import { col, expr, idCol, isUuid, tsCol } from '../../db/columns';
import { ResourceDef, oneByIdJson } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

type Requisition = Schema<'Requisition'>;
export type RequisitionState = Schema<'RequisitionState'>;

export const requisitions: ResourceDef = {
  table: 'requisitions',
  alias: 'rq',
  softDelete: true,
  columns: {
    id: idCol('rq.id'),
    externalId: col('rq.external_id'),
    createdAt: tsCol('rq.created_at'),
    updatedAt: tsCol('rq.updated_at'),
    createdById: expr('rq.created_by_id'),
    updatedById: expr('rq.updated_by_id'),
    jobId: expr('rq.job_id'),
    identifier: col('rq.identifier'),
    state: col('rq.state'),
    orderingAgentId: expr('rq.ordering_agent_id'),
    notes: expr('rq.notes'),
    deletedAt: expr('api_ts(rq.deleted_at)'),
    deletedById: expr('rq.deleted_by_id'),
    deliveryLocationId: expr('rq.delivery_location_id'),
    manuallyClosedAt: expr('api_ts(rq.manually_closed_at)'),
    needByDateCategory: expr('rq.need_by_date_category'),
    needByDateDay: tsCol('rq.need_by_date_day'),
    needByWindow: expr('rq.need_by_window'),
    sentAt: expr('api_ts(rq.sent_at)'),
    scheduledAt: expr('api_ts(rq.scheduled_at)'),
    title: col('rq.title'),
    vendorContactId: expr('rq.vendor_contact_id'),
  },
};

export const requisitionItems: ResourceDef = {
  table: 'requisition_items',
  alias: 'ri',
  columns: {
    id: idCol('ri.id'),
    createdAt: tsCol('ri.created_at'),
    updatedAt: tsCol('ri.updated_at'),
    allowSubstitution: expr('ri.allow_substitution'),
    createdById: expr('ri.created_by_id'),
    lineItemId: expr('ri.line_item_id'),
    purchaseOrderId: expr('ri.purchase_order_id'),
    requisitionId: expr('ri.requisition_id'),
    description: col('ri.description'),
    lineNumber: col('ri.line_number'),
    manufacturerPartNumber: expr('ri.manufacturer_part_number'),
    notes: col('ri.notes'),
    quantity: expr('ri.quantity'),
    quantityDelivered: expr('ri.quantity_delivered'),
    rejectionMessage: expr('ri.rejection_message'),
    rejectionReason: expr('ri.rejection_reason'),
    state: col('ri.state'),
    unitsOfMeasure: expr('ri.units_of_measure'),
    universalProductCode: expr('ri.universal_product_code'),
    integrationData: expr('ri.integration_data'),
    catalogId: expr('ri.catalog_id'),
    states: expr(`json_build_object(
      'AddedToPO', ri.qty_added_to_po, 'Requested', ri.qty_requested, 'RejectedByPurchasing', ri.qty_rejected_by_purchasing,
      'AddedToWarehouseRequest', ri.qty_added_to_warehouse_request, 'AcknowledgedByPurchasing', ri.qty_acknowledged_by_purchasing)`),
  },
};

export const getRequisition = (db: Queryable, orgId: string, id: string) => oneByIdJson<Requisition>(db, requisitions, orgId, id);

/**
 * Sets the state from any state. CLOSED stamps manually_closed_at (a closing through the API is a
 * manual close); any other state clears it, since the requisition is no longer closed.
 */
export async function setRequisitionState(
  db: Queryable,
  orgId: string,
  id: string,
  state: RequisitionState,
  userId: string,
): Promise<Json<Requisition> | undefined> {
  if (!isUuid(id)) return undefined;
  const n = await db('requisitions')
    .where({ organization_id: orgId, id })
    .whereNull('deleted_at')
    .update({
      state,
      // Closing a closed requisition keeps when it was closed: it changes nothing (src/feed/unchanged.ts).
      manually_closed_at: state === 'CLOSED' ? db.raw(`CASE WHEN state = 'CLOSED' THEN coalesce(manually_closed_at, now()) ELSE now() END`) : null,
      updated_at: db.fn.now(),
      updated_by_id: userId,
    });
  return n ? getRequisition(db, orgId, id) : undefined;
}
