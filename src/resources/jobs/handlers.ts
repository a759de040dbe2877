import { forbidden, notFound } from '../../http/errors';
import type { Handlers, Schema } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { oneJson, scoped, whereId } from '../../db/resource';
import { locationListParams } from '../locations/list-params';
import { locationType } from '../locations/queries';
import { userExists } from '../users/queries';
import { upsertJobs } from './batch';
import * as links from './links';
import { peekNextPurchaseOrderNumber, setPurchaseOrderCounter } from './po-counter';
import * as q from './queries';

const missing = (idOrCode: string) => notFound(`No job matches ${idOrCode}.`);

async function requireJob(db: Parameters<typeof q.jobId>[0], orgId: string, idOrCode: string): Promise<string> {
  const id = await q.jobId(db, orgId, idOrCode);
  if (!id) throw missing(idOrCode);
  return id;
}

async function requireLocation(db: Parameters<typeof locationType>[0], orgId: string, id: string): Promise<void> {
  if (!(await locationType(db, orgId, id))) throw notFound(`query.locationId: no location ${id} exists in your organization.`);
}

async function requireUser(db: Parameters<typeof userExists>[0], orgId: string, id: string): Promise<void> {
  if (!(await userExists(db, orgId, id))) throw notFound(`query.userId: no user ${id} exists in your organization.`);
}

export const jobHandlers: Handlers<
  | 'listJobs'
  | 'createJob'
  | 'upsertJobs'
  | 'getJob'
  | 'updateJob'
  | 'listJobLocations'
  | 'addJobLocation'
  | 'removeJobLocation'
  | 'listJobUsers'
  | 'addJobUser'
  | 'removeJobUser'
  | 'getNextPurchaseOrderNumber'
  | 'setNextPurchaseOrderNumber'
> = {
  listJobs: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listJobs(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' })),
  }),

  createJob: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createJob(db, caller.organizationId, body),
  }),

  upsertJobs: async ({ db, caller, body, changes }) => ({
    status: 200,
    body: await upsertJobs(db, caller.organizationId, body.inputs, (ids) => changes.markCreated(ids)),
  }),

  getJob: async ({ db, caller, params }) => {
    const found = await q.getJob(db, caller.organizationId, params.idOrCode);
    if (!found) throw missing(params.idOrCode);
    return { status: 200, body: found };
  },

  updateJob: async ({ db, caller, params, body }) => {
    const updated = await q.updateJob(db, caller.organizationId, params.idOrCode, body);
    if (!updated) throw missing(params.idOrCode);
    return { status: 200, body: updated };
  },

  listJobLocations: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    return { status: 200, body: await links.listJobLocations(db, caller.organizationId, jobId, locationListParams(query)) };
  },

  addJobLocation: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    await requireLocation(db, caller.organizationId, query.locationId);
    await links.addJobLocation(db, caller.organizationId, jobId, query.locationId, query.shouldSetAsDefault ?? false);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  removeJobLocation: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    await requireLocation(db, caller.organizationId, query.locationId);
    await links.removeJobLocation(db, caller.organizationId, jobId, query.locationId);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  listJobUsers: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    return { status: 200, body: await links.listJobUsers(db, caller.organizationId, jobId, listParams(query, { orderBy: 'createdAt' })) };
  },

  addJobUser: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    await requireUser(db, caller.organizationId, query.userId);
    await links.addJobUser(db, caller.organizationId, jobId, query.userId);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  removeJobUser: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    await requireUser(db, caller.organizationId, query.userId);
    await links.removeJobUser(db, caller.organizationId, jobId, query.userId);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  getNextPurchaseOrderNumber: async ({ db, caller, params }) => {
    const jobId = await requireJob(db, caller.organizationId, params.idOrCode);
    return { status: 200, body: { nextPurchaseOrderNumber: await peekNextPurchaseOrderNumber(db, caller.organizationId, jobId) } };
  },

  setNextPurchaseOrderNumber: async ({ db, caller, params, body }) => {
    const orgId = caller.organizationId;
    const jobId = await requireJob(db, orgId, params.idOrCode);
    const org = await db('organizations').where({ id: orgId }).first('po_counter_enabled');
    if (!org?.po_counter_enabled) {
      throw forbidden('Setting the purchase order counter must be enabled for your organization by a support request; contact support to turn it on.');
    }
    const job = await db.transaction(async (tx) => {
      await setPurchaseOrderCounter(tx, orgId, jobId, body.nextCounter);
      return oneJson<Schema<'JobWithCounter'>>(tx, q.jobsWithCounter, whereId(scoped(tx, q.jobsWithCounter, orgId), q.jobsWithCounter, jobId));
    });
    return { status: 200, body: job! };
  },
};
