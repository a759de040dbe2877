import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneByIdJson, scoped, whereId } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { JsonParts } from '../../db/json';
import { attachedFilesSql } from '../files/attachments';

type DeliveryReceipt = Schema<'DeliveryReceipt'>;
export type IntegrationState = Schema<'IntegrationState'>;
export type IssueFilter = 'NO_ISSUES' | 'MISSING' | 'DAMAGED' | 'WRONG_ITEM' | 'BACKORDERED' | 'ALL';

/** The receipt's issue kinds (SQL function of the migration): output and issueType_in share it. */
const ISSUES_SQL = 'delivery_receipt_issues(dr.organization_id, dr.id)';

export const deliveryReceipts: ResourceDef = {
  table: 'delivery_receipts',
  alias: 'dr',
  softDelete: true,
  columns: {
    id: idCol('dr.id'),
    externalId: col('dr.external_id'),
    identifier: col('dr.identifier'),
    purchaseOrder: expr('dr.order_id'),
    notes: col('dr.notes'),
    state: col('dr.state'),
    issues: expr(`to_json(${ISSUES_SQL})`),
    warehouseRequest: expr('dr.warehouse_request_id'),
    notifiedContacts: expr('to_json(dr.notified_contacts)'),
    deleted: expr('(dr.deleted_at IS NOT NULL)'),
    createdAt: tsCol('dr.created_at'),
    updatedAt: tsCol('dr.updated_at'),
    // Deleting is archiving: the deletion time is the archive time.
    archivedAt: tsCol('dr.deleted_at'),
    createdBy: expr('dr.created_by_id'),
    release: expr('NULL::json'),
    integrationState: expr('dr.integration_state'),
    integrationMessage: expr('dr.integration_message'),
    integrationLastSync: expr('api_ts(dr.integration_last_sync)'),
    attachments: expr(attachedFilesSql('delivery_receipt_attachments', 'delivery_receipt_id', 'dr')),
  },
};

export const deliveryReceiptItems: ResourceDef = {
  table: 'delivery_receipt_items',
  alias: 'dri',
  columns: {
    id: idCol('dri.id'),
    deliveryReceiptId: expr('dri.delivery_receipt_id'),
    description: expr('dri.description'),
    notes: expr('dri.notes'),
    quantity: expr('dri.quantity'),
    quantityReceivedThisReceipt: expr('dri.quantity_received_this_receipt'),
    unitsOfMeasure: expr('dri.units_of_measure'),
    itemId: expr('dri.item_id'),
    issues: expr('dri.issues'),
    createdAt: tsCol('dri.created_at'),
    updatedAt: tsCol('dri.updated_at'),
  },
};

export interface ReceiptListOptions {
  includeDeleted: boolean;
  /** From `filter[issueType_in]`; omitted means NO_ISSUES. */
  issueTypes?: IssueFilter[];
  orderId?: string;
}

function whereIssues(q: Knex.QueryBuilder, kinds: IssueFilter[] | undefined): void {
  const wanted = kinds?.length ? kinds : ['NO_ISSUES'];
  if (wanted.includes('ALL')) return;
  q.whereRaw(`${ISSUES_SQL} && ?::text[]`, [wanted]);
}

export function listDeliveryReceipts(db: Queryable, orgId: string, params: ListParams, opts: ReceiptListOptions): Promise<JsonParts<DeliveryReceipt[]>> {
  const q = scoped(db, deliveryReceipts, orgId, { includeDeleted: opts.includeDeleted });
  if (opts.orderId) q.where('dr.order_id', opts.orderId);
  whereIssues(q, opts.issueTypes);
  return listJson<DeliveryReceipt>(db, deliveryReceipts, q, params, ['issueType_in']);
}

export const getDeliveryReceipt = (db: Queryable, orgId: string, id: string, includeDeleted = false) =>
  oneByIdJson<DeliveryReceipt>(db, deliveryReceipts, orgId, id, { includeDeleted });

/**
 * What the integrating system reports. LINKED stamps integration_last_sync; the message is stored
 * as given (cleared when none). Like order reports, it leaves updated_at alone (no sync loop).
 */
export async function setDeliveryReceiptIntegrationState(
  db: Queryable,
  orgId: string,
  id: string,
  state: IntegrationState,
  message: string | null,
): Promise<boolean> {
  const n = await whereId(db('delivery_receipts as dr').where('dr.organization_id', orgId).whereNull('dr.deleted_at'), deliveryReceipts, id).update({
    integration_state: state,
    integration_message: message,
    ...(state === 'LINKED' ? { integration_last_sync: db.fn.now() } : {}),
  });
  return n > 0;
}
