import type { Queryable } from '../db/knex';
import type { OperationId } from '../http/handler';
import type { ChangeCollector, ChangeEntry } from './append';
import { getChangeOrder } from '../resources/change-orders/queries';
import { getLocation } from '../resources/locations/queries';
import { getNotification } from '../resources/notifications/queries';

/**
 * Which feed entries each write operation of the contract emits, derived from its reply: one
 * table, so every write is covered in one place (test/changes.test.ts fails for a write
 * operation of the contract that is neither here nor in FEED_EXCLUDED).
 *
 * `data` is the object exactly as its own read endpoint returns it at that change; that is the
 * operation's reply for almost every write (it is read back inside the same transaction). A
 * deletion's `data` is the tombstone: the deleted object as the operation returns it (it carries
 * `id`, `deletedAt` and the parent ids, e.g. `billOfMaterialsId`, `jobId`). Where the reply does
 * not hold the object (a boolean, a list of ids) the emitter reads it in the same transaction.
 * A batch upsert marks the ids it inserted (ChangeCollector.markCreated, from `xmax = 0` in its
 * RETURNING) so each element is `created` or `updated` as it really was.
 */
export interface EmitContext {
  /** The write's transaction. */
  db: Queryable;
  organizationId: string;
  status: number;
  params: Record<string, any>;
  query: Record<string, any>;
  input: any;
  changes: ChangeCollector;
}

export type Emitter = (reply: any, ctx: EmitContext) => ChangeEntry[] | Promise<ChangeEntry[]>;

/** Every resource the feed reports, as `resource` and as the first part of `type`. */
export const FEED_RESOURCES = [
  'bill_of_materials',
  'bom_item',
  'change_order',
  'cost_category',
  'delivery_receipt',
  'group',
  'invoice',
  'invoice_item',
  'item',
  'job',
  'location',
  'notification',
  'order',
  'order_tag',
  'phase',
  'release',
  'requisition',
  'tag',
  'tax_code',
  'unit_of_measure',
  'user',
  'vendor',
  'warehouse_request',
] as const;
export type FeedResource = (typeof FEED_RESOURCES)[number];

export const entry = (resource: FeedResource, event: string, data: { id: string; [key: string]: unknown }): ChangeEntry => ({ type: `${resource}.${event}`, resource, id: data.id, data });

/** The reply is the object. */
const one =
  (resource: FeedResource, event: string): Emitter =>
  (reply) => [entry(resource, event, reply)];

/** The reply is a list of objects, one entry each. */
const each =
  (resource: FeedResource, event: string): Emitter =>
  (reply: { id: string }[]) =>
    reply.map((o) => entry(resource, event, o));

/** A batch upsert's reply: `created` for the ids it inserted, `updated` for the others. */
const upserted =
  (resource: FeedResource): Emitter =>
  (reply: { id: string }[], { changes }) =>
    reply.map((o) => entry(resource, changes.created.has(o.id) ? 'created' : 'updated', o));

/** The job (the reply) and the location whose `jobs` list changed. */
const jobAndLocation: Emitter = async (reply, { db, organizationId, query }) => {
  const location = await getLocation(db, organizationId, query.locationId);
  return [entry('job', 'updated', reply), ...(location ? [entry('location', 'updated', JSON.parse(location))] : [])];
};

export const FEED_OPERATIONS: Partial<Record<OperationId, Emitter>> = {
  createTaxCode: one('tax_code', 'created'),
  updateTaxCode: one('tax_code', 'updated'),
  deleteTaxCode: one('tax_code', 'deleted'),

  createUnitOfMeasure: one('unit_of_measure', 'created'),
  updateUnitOfMeasure: one('unit_of_measure', 'updated'),

  createJob: one('job', 'created'),
  upsertJobs: upserted('job'),
  updateJob: one('job', 'updated'),
  addJobLocation: jobAndLocation,
  removeJobLocation: jobAndLocation,
  addJobUser: one('job', 'updated'),
  removeJobUser: one('job', 'updated'),
  // The reply is the job plus its counter (JobWithCounter); the entry carries it as replied.
  setNextPurchaseOrderNumber: one('job', 'purchase_order_counter_changed'),

  createGroup: one('group', 'created'),
  updateGroup: one('group', 'updated'),

  createLocation: one('location', 'created'),
  updateLocation: one('location', 'updated'),
  deleteLocation: one('location', 'deleted'),

  createVendor: one('vendor', 'created'),
  upsertVendors: upserted('vendor'),
  updateVendor: one('vendor', 'updated'),
  deleteVendor: one('vendor', 'deleted'),
  setVendorLocation: async (reply, { db, organizationId, input }) => {
    const location = await getLocation(db, organizationId, input.locationId);
    return [entry('vendor', 'updated', reply), ...(location ? [entry('location', 'updated', JSON.parse(location))] : [])];
  },

  createGlobalPhase: one('phase', 'created'),
  upsertPhases: upserted('phase'),
  updateGlobalPhase: one('phase', 'updated'),
  deleteGlobalPhase: one('phase', 'deleted'),
  createJobPhase: one('phase', 'created'),
  updateJobPhase: one('phase', 'updated'),
  deleteJobPhase: one('phase', 'deleted'),

  createGlobalCategory: one('cost_category', 'created'),
  updateGlobalCategory: one('cost_category', 'updated'),
  deleteGlobalCategory: one('cost_category', 'deleted'),
  createJobPhaseCategory: one('cost_category', 'created'),
  updateJobPhaseCategory: one('cost_category', 'updated'),
  deleteJobPhaseCategory: one('cost_category', 'deleted'),
  createJobCategory: one('cost_category', 'created'),
  updateJobCategory: one('cost_category', 'updated'),
  deleteJobCategory: one('cost_category', 'deleted'),

  createUser: one('user', 'created'),

  updateOrderIntegrationState: one('order', 'integration_state_changed'),
  // An order's tag: `id` is the tag's id, `data` the tag as GET /order/{orderId}/tags returns it
  // plus `orderId` (a tag is on many orders: the pair orderId, id names the attachment). Tags the
  // request created or recolored (the handler marks them) also get their own `tag.*` entry first.
  addOrderTags: (reply: { id: string }[], { changes, params }) => [
    ...reply.filter((t) => changes.created.has(t.id) || changes.updated.has(t.id)).map((t) => entry('tag', changes.created.has(t.id) ? 'created' : 'updated', t)),
    ...reply.map((t) => entry('order_tag', 'created', { ...t, orderId: params.orderId })),
  ],
  removeOrderTag: (_reply, { params }) => [entry('order_tag', 'deleted', { id: params.tagId, orderId: params.orderId, deletedAt: new Date().toISOString() })],

  createNotification: one('notification', 'created'),
  // The reply lists the ids changed; each notification is read back in the transaction.
  updateNotifications: async (reply: string[], { db, organizationId }) => {
    const entries: ChangeEntry[] = [];
    for (const id of reply) {
      const found = await getNotification(db, organizationId, id);
      if (found) entries.push(entry('notification', 'updated', JSON.parse(found)));
    }
    return entries;
  },

  // The reply is `true`; the change order is read back in the transaction.
  setChangeOrderIntegrationState: async (_reply, { db, organizationId, params }) => {
    const found = await getChangeOrder(db, organizationId, params.changeOrderId);
    return found ? [entry('change_order', 'integration_state_changed', JSON.parse(found))] : [];
  },

  // 200 answers an existing bill of materials: nothing changed.
  createJobBillOfMaterials: (reply, { status }) => (status === 201 ? [entry('bill_of_materials', 'created', reply)] : []),
  createBillOfMaterialsItems: each('bom_item', 'created'),
  updateBillOfMaterialsItem: one('bom_item', 'updated'),
  deleteBillOfMaterialsItem: one('bom_item', 'deleted'),
  updateBillOfMaterialsItems: each('bom_item', 'updated'),

  updateRequisitionState: one('requisition', 'state_changed'),
  updateDeliveryReceiptIntegrationState: one('delivery_receipt', 'integration_state_changed'),
  markInvoicesPaid: each('invoice', 'paid'),
};

/**
 * Write operations that change no resource of the contract, so emit nothing. Each needs its
 * reason; anything else that writes must be in FEED_OPERATIONS.
 */
export const FEED_EXCLUDED: Partial<Record<OperationId, string>> = {
  issueToken: 'issues an access token (credentials are not a resource of the contract)',
};
