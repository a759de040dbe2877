import type { Queryable } from '../db/knex';
import type { OperationId } from '../http/handler';
import type { ChangeEntry } from '../feed/append';
import type { ChangeEvent, FeedResource, ResourceWith } from '../feed/change-types';
import { entry, type EmitContext, type Emitter } from '../feed/emit';
import { locationsInOrder } from './locations/queries';
import { jobsInOrder } from './jobs/queries';
import { vendorsInOrder } from './vendors/queries';
import { notificationsInOrder } from './notifications/queries';

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
export { FEED_RESOURCES, type FeedResource } from '../feed/change-types';

/** The reply is the object. */
const one =
  <R extends FeedResource>(resource: R, event: ChangeEvent<R>): Emitter =>
  (reply) => [entry(resource, event, reply)];

/** The reply is a list of objects, one entry each. */
const each =
  <R extends FeedResource>(resource: R, event: ChangeEvent<R>): Emitter =>
  (reply: { id: string }[]) =>
    reply.map((o) => entry(resource, event, o));

/** A batch upsert's reply: `created` for the ids it inserted, `updated` for the others. */
const upserted =
  <R extends ResourceWith<'created' | 'updated'>>(resource: R): Emitter =>
  (reply: { id: string }[], { changes }) =>
    reply.map((o) => entry(resource, (changes.created.has(o.id) ? 'created' : 'updated') as ChangeEvent<R>, o));

/** The write transaction's time as the API writes timestamps (what its rows store as created_at, deleted_at). */
const transactionTime = async (db: Queryable): Promise<string> => (await db.raw('SELECT api_ts(now()::timestamptz(3)) AS now')).rows[0].now;

const present = (ids: unknown[]): string[] => [...new Set(ids.filter((id): id is string => typeof id === 'string'))];

/**
 * Locations whose representation the write changed besides its own object: created inline with a
 * job, or whose `jobs` / `vendors` lists changed. Read back in one statement; `created` when the
 * location's createdAt is this transaction's now() (as stored, to the millisecond).
 */
async function locationEntries({ db, organizationId }: EmitContext, ids: unknown[]): Promise<ChangeEntry[]> {
  const wanted = present(ids);
  if (!wanted.length) return [];
  const now = await transactionTime(db);
  const found: { id: string; createdAt: string }[] = JSON.parse(await locationsInOrder(db, organizationId, wanted));
  return found.map((l) => entry('location', l.createdAt === now ? 'created' : 'updated', l));
}

/** Jobs and vendors whose representation a location change altered (a default location reassigned, an embedded location). */
async function jobAndVendorEntries({ db, organizationId }: EmitContext, jobIds: unknown[], vendorIds: unknown[]): Promise<ChangeEntry[]> {
  const jobs: { id: string }[] = present(jobIds).length ? JSON.parse(await jobsInOrder(db, organizationId, present(jobIds))) : [];
  const vendors: { id: string }[] = present(vendorIds).length ? JSON.parse(await vendorsInOrder(db, organizationId, present(vendorIds))) : [];
  return [...jobs.map((j) => entry('job', 'updated', j)), ...vendors.map((v) => entry('vendor', 'updated', v))];
}

/** Whether a write may have changed an object's code or name, which locations show in their `jobs` / `vendors` lists. */
const renames = (input: any): boolean => Array.isArray(input?.inputs) || (input && typeof input === 'object' && ('code' in input || 'name' in input));

/** The objects of a reply whose code or name the write changed: a batch says which; a single write may have when it gives one. */
function renamedOf<T extends { id: string }>(objects: T[], ctx: EmitContext): T[] {
  const renamed = ctx.changes.renamed;
  return renamed ? objects.filter((o) => renamed.has(o.id)) : renames(ctx.input) ? objects : [];
}

/** Locations listing these jobs (attached or as their default). */
async function locationsOfJobs(db: Queryable, organizationId: string, jobIds: string[]): Promise<string[]> {
  const rows: { id: string }[] = await db
    .select('location_id as id')
    .from('job_locations')
    .where('organization_id', organizationId)
    .whereRaw('job_id = ANY(?::uuid[])', [jobIds])
    .union((u) =>
      u
        .select('default_location_id as id')
        .from('jobs')
        .where('organization_id', organizationId)
        .whereRaw('id = ANY(?::uuid[])', [jobIds])
        .whereNotNull('default_location_id'),
    );
  return rows.map((r) => r.id);
}

/** Vendors (the reply) and, when their code or name may have changed or they were deleted, the locations that list them. */
const vendorsWithLocations =
  (event: 'created' | 'updated' | 'deleted' | 'upserted'): Emitter =>
  async (reply, ctx) => {
    const vendors: { id: string; location: { id: string } | null }[] = Array.isArray(reply) ? reply : [reply];
    const entries = vendors.map((v) => entry('vendor', event === 'upserted' ? (ctx.changes.created.has(v.id) ? 'created' : 'updated') : event, v));
    const listed = event === 'deleted' ? vendors : renamedOf(vendors, ctx);
    return [
      ...entries,
      ...(await locationEntries(
        ctx,
        listed.map((v) => v.location?.id),
      )),
    ];
  };

/** A job write that may have created, or attached, its default location: that location first, then the job(s). */
const jobsWithLocations =
  (event: 'created' | 'updated' | 'upserted'): Emitter =>
  async (reply, ctx) => {
    const jobs: { id: string; defaultLocationId: string | null }[] = Array.isArray(reply) ? reply : [reply];
    const inputs: { defaultLocation?: unknown; defaultLocationId?: unknown }[] = Array.isArray(ctx.input?.inputs) ? ctx.input.inputs : [ctx.input ?? {}];
    const touched = jobs
      .filter((_, i) => inputs[i]?.defaultLocation !== undefined || typeof inputs[i]?.defaultLocationId === 'string')
      .map((j) => j.defaultLocationId);
    const jobEvent = (id: string) => (event === 'upserted' ? (ctx.changes.created.has(id) ? 'created' : 'updated') : event);
    // Locations list their jobs by code and name: a rename shows there too (after the job's entry).
    const listed = event === 'created' ? [] : renamedOf(jobs, ctx);
    const listing = listed.length
      ? (
          await locationsOfJobs(
            ctx.db,
            ctx.organizationId,
            listed.map((j) => j.id),
          )
        ).filter((id) => !touched.includes(id))
      : [];
    return [...(await locationEntries(ctx, touched)), ...jobs.map((j) => entry('job', jobEvent(j.id), j)), ...(await locationEntries(ctx, listing))];
  };

/** The job (the reply) and the location whose `jobs` list changed. */
const jobAndLocation: Emitter = async (reply, ctx) => [entry('job', 'updated', reply), ...(await locationEntries(ctx, [ctx.query.locationId]))];

export const FEED_OPERATIONS: Partial<Record<OperationId, Emitter>> = {
  createTaxCode: one('tax_code', 'created'),
  updateTaxCode: one('tax_code', 'updated'),
  deleteTaxCode: one('tax_code', 'deleted'),

  createUnitOfMeasure: one('unit_of_measure', 'created'),
  updateUnitOfMeasure: one('unit_of_measure', 'updated'),

  createJob: jobsWithLocations('created'),
  upsertJobs: jobsWithLocations('upserted'),
  updateJob: jobsWithLocations('updated'),
  addJobLocation: jobAndLocation,
  removeJobLocation: jobAndLocation,
  addJobUser: one('job', 'updated'),
  removeJobUser: one('job', 'updated'),
  // The reply is the job plus its counter (JobWithCounter); the entry carries it as replied.
  setNextPurchaseOrderNumber: one('job', 'purchase_order_counter_changed'),

  createGroup: one('group', 'created'),
  updateGroup: one('group', 'updated'),

  createLocation: one('location', 'created'),
  // Vendors embed their location.
  updateLocation: async (reply, ctx) => [
    entry('location', 'updated', reply),
    ...(await jobAndVendorEntries(
      ctx,
      [],
      (reply.vendors ?? []).map((v: { id: string }) => v.id),
    )),
  ],
  // Its jobs get another default location, its vendors none.
  deleteLocation: async (reply, ctx) => [
    entry('location', 'deleted', reply),
    ...(await jobAndVendorEntries(
      ctx,
      (reply.jobs ?? []).map((j: { id: string }) => j.id),
      (reply.vendors ?? []).map((v: { id: string }) => v.id),
    )),
  ],

  createVendor: vendorsWithLocations('created'),
  upsertVendors: vendorsWithLocations('upserted'),
  updateVendor: vendorsWithLocations('updated'),
  deleteVendor: vendorsWithLocations('deleted'),
  // The location it moved to, then the one it left (marked by the handler: the reply does not name it).
  setVendorLocation: async (reply, ctx) => [entry('vendor', 'updated', reply), ...(await locationEntries(ctx, [ctx.input.locationId, ...ctx.changes.updated]))],

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

  // An order's tag: `id` is the tag's id, `data` the tag as GET /order/{orderId}/tags returns it
  // plus `orderId` (a tag is on many orders: the pair orderId, id names the attachment). Tags the
  // request created or recolored (the handler marks them) also get their own `tag.*` entry first.
  addOrderTags: (reply: { id: string }[], { changes, params }) => [
    ...reply
      .filter((t) => changes.created.has(t.id) || changes.updated.has(t.id))
      .map((t) => entry('tag', changes.created.has(t.id) ? 'created' : 'updated', t)),
    // Only the tags the order did not have: one it has already is no change (src/feed/unchanged.ts).
    ...reply.filter((t) => changes.attached.has(t.id)).map((t) => entry('order_tag', 'created', { ...t, orderId: params.orderId })),
  ],
  // The tag leaves the order's row with it (nothing is soft-deleted): the transaction's time, as a soft delete's deletedAt is.
  removeOrderTag: async (_reply, { db, params }) => [
    entry('order_tag', 'deleted', { id: params.tagId, orderId: params.orderId, deletedAt: await transactionTime(db) }),
  ],

  createNotification: one('notification', 'created'),
  // The reply lists the ids changed; the notifications are read back in the transaction, in one statement.
  updateNotifications: async (reply: string[], { db, organizationId }) =>
    reply.length ? (JSON.parse(await notificationsInOrder(db, organizationId, reply)) as { id: string }[]).map((n) => entry('notification', 'updated', n)) : [],

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
  replayWebhookDeliveries: 're-sends entries already in the feed; it changes no object',
};

/**
 * Write operations whose handlers record their own entries with `ctx.changes.add`: one request
 * changes an order, its items and its change-order versions, which the reply alone cannot tell.
 * Their entries are checked by test/orders-authoring.test.ts ("records a feed entry for every
 * change") and, for the integration reports, by test/changes.test.ts.
 */
export const FEED_BY_HANDLER: Partial<Record<OperationId, string>> = {
  createOrder: 'order.created, then item.created per line',
  updateOrder: 'change_order.created (a sent order), order.updated, item.updated for repriced lines',
  deleteOrder: 'item.deleted, change_order.deleted, release.deleted and order_tag.deleted for each of what it holds, then order.deleted',
  createOrderItems: 'change_order.created (a sent order), order.updated, item.created per line',
  updateItem: 'change_order.created (a sent order), order.updated, item.updated',
  deleteItem: 'change_order.created (a sent order), order.updated, item.deleted',
  updateOrderIntegrationState: 'order.integration_state_changed (also when a refused stale LINKED moves a LINKING order to OUT_OF_SYNC)',
  setChangeOrderIntegrationState: 'change_order.integration_state_changed',
  updateInvoiceIntegrationState: 'invoice.integration_state_changed',
  // The reply of an endpoint write holds its secret, which never enters the feed.
  createWebhookEndpoint: 'webhook_endpoint.created (without its secret)',
  updateWebhookEndpoint: 'webhook_endpoint.updated',
  deleteWebhookEndpoint: 'webhook_endpoint.deleted',
  rotateWebhookEndpointSecret: 'webhook_endpoint.updated (without its secret)',
};
