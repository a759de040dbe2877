import type { Queryable } from '../../db/knex';
import { col, expr, idCol, isUuid, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, allJson, listJson, oneByIdJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { attachedFilesSql } from '../files/attachments';

type Invoice = Schema<'Invoice'>;

export const invoices: ResourceDef = {
  table: 'invoices',
  alias: 'inv',
  softDelete: true,
  columns: {
    id: idCol('inv.id'),
    externalId: col('inv.external_id'),
    createdAt: tsCol('inv.created_at'),
    updatedAt: tsCol('inv.updated_at'),
    createdById: expr('inv.created_by_id'),
    deletedAt: tsCol('inv.deleted_at'),
    title: expr('inv.title'),
    jobId: expr('inv.job_id'),
    vendorId: expr('inv.vendor_id'),
    orderId: expr('inv.order_id'),
    type: col('inv.type'),
    approvedAt: tsCol('inv.approved_at'),
    approvedById: expr('inv.approved_by_id'),
    assignedAt: expr('api_ts(inv.assigned_at)'),
    category: col('inv.category'),
    dueDate: expr('api_ts(inv.due_date)'),
    invoiceDate: tsCol('inv.invoice_date'),
    shipDate: tsCol('inv.ship_date'),
    exceptions: expr('to_json(inv.exceptions)'),
    flagged: col('inv.flagged'),
    flaggedAt: tsCol('inv.flagged_at'),
    flaggedById: expr('inv.flagged_by_id'),
    flagMessage: expr('inv.flag_message'),
    invoiceNumber: col('inv.invoice_number'),
    paidAt: tsCol('inv.paid_at'),
    paidById: expr('inv.paid_by_id'),
    payments: expr('inv.payments'),
    rejectedAt: tsCol('inv.rejected_at'),
    rejectedById: expr('inv.rejected_by_id'),
    rejectedReason: expr('inv.rejected_reason'),
    salesperson: expr('inv.salesperson'),
    shipVia: expr('inv.ship_via'),
    terms: expr('inv.terms'),
    shippingCostFloat: expr('inv.shipping_cost'),
    state: col('inv.state'),
    integrationState: col('inv.integration_state'),
    integrationMessage: expr('inv.integration_message'),
    attachments: expr(attachedFilesSql('invoice_attachments', 'invoice_id', 'inv')),
    subtotal: expr('inv.subtotal'),
    tax: expr('inv.tax'),
    totalDue: expr('inv.total_due'),
    taxExempt: col('inv.tax_exempt'),
    voidedAt: tsCol('inv.voided_at'),
    voidedById: expr('inv.voided_by_id'),
  },
};

export const listInvoices = (db: Queryable, orgId: string, params: ListParams, includeDeleted: boolean) =>
  listJson<Invoice>(db, invoices, scoped(db, invoices, orgId, { includeDeleted }), params);

export const getInvoice = (db: Queryable, orgId: string, id: string, includeDeleted = false) =>
  oneByIdJson<Invoice>(db, invoices, orgId, id, { includeDeleted });

/** The given IDs that are live invoices of the organization. */
export async function existingInvoiceIds(db: Queryable, orgId: string, ids: string[]): Promise<Set<string>> {
  const valid = ids.filter(isUuid);
  if (!valid.length) return new Set();
  const rows: { id: string }[] = await scoped(db, invoices, orgId).whereRaw('inv.id = ANY(?::uuid[])', [valid]).forUpdate().select('inv.id');
  return new Set(rows.map((r) => r.id));
}

/**
 * Closes the invoices as paid by the user. An invoice paid before it was approved counts as
 * approved by the same user at the same time (the spec's shown result has approval fields set).
 * An invoice already paid and closed is left as it is.
 */
export async function markPaid(db: Queryable, orgId: string, ids: string[], userId: string): Promise<Json<Invoice[]>> {
  await db('invoices')
    .where('organization_id', orgId)
    .whereNull('deleted_at')
    .whereRaw('id = ANY(?::uuid[])', [ids])
    // A paid invoice stays as it is (when and by whom it was paid): marking it again changes nothing (src/feed/unchanged.ts).
    .whereRaw(`NOT (state = 'CLOSED' AND paid_at IS NOT NULL)`)
    .update({
      state: 'CLOSED',
      paid_at: db.raw('coalesce(paid_at, now())'),
      paid_by_id: db.raw('CASE WHEN paid_at IS NULL THEN ?::uuid ELSE paid_by_id END', [userId]),
      approved_by_id: db.raw('CASE WHEN approved_at IS NULL THEN ?::uuid ELSE approved_by_id END', [userId]),
      approved_at: db.raw('coalesce(approved_at, now())'),
      updated_at: db.fn.now(),
    });
  const q = scoped(db, invoices, orgId).whereRaw('inv.id = ANY(?::uuid[])', [ids]).orderByRaw('array_position(?::uuid[], inv.id)', [ids]);
  return allJson<Invoice>(db, invoices, q, 'inv.id');
}

/** Stores a reported integration state and message (not a change made in the service: updated_at stays). */
export async function setIntegrationState(db: Queryable, orgId: string, id: string, state: string, message: string | null): Promise<boolean> {
  if (!isUuid(id)) return false;
  const n = await db('invoices')
    .where({ organization_id: orgId, id })
    .whereNull('deleted_at')
    .update({ integration_state: state, integration_message: message });
  return n > 0;
}
