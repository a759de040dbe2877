import { forbidden, notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import type { Queryable } from '../../db/knex';
import { existsById, oneByIdJson } from '../../db/resource';
import { locationListParams } from '../locations/list-params';
import { locationType } from '../locations/queries';
import { missingJob, requireJob } from './lookup';
import { createdBy, plainHandlers, upsertedBy } from '../crud-handlers';
import { users } from '../users/queries';
import { upsertJobs } from './batch';
import * as links from './links';
import { peekNextPurchaseOrderNumber, setPurchaseOrderCounter } from './po-counter';
import * as q from './queries';

const job = plainHandlers<Schema<'Job'>>(q.jobs);

async function requireLocation(db: Queryable, orgId: string, id: string): Promise<void> {
  if (!(await locationType(db, orgId, id))) throw notFound(`query.locationId: no location ${id} exists in your organization.`);
}

async function requireUser(db: Queryable, orgId: string, id: string): Promise<void> {
  if (!(await existsById(db, users, orgId, id))) throw notFound(`query.userId: no user ${id} exists in your organization.`);
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
  listJobs: job.list({ orderBy: 'createdAt' }),

  createJob: createdBy(q.createJob),

  upsertJobs: upsertedBy(upsertJobs),

  // The prepared `:idOrCode` read (oneByIdOrCodeJson): the most frequent request there is.
  getJob: job.get('jobIdOrCode', missingJob),

  updateJob: ({ db, caller, params, body }) => okOrNotFound(q.updateJob(db, caller.organizationId, params.jobIdOrCode, body), missingJob, params.jobIdOrCode),

  listJobLocations: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    return { status: 200, body: await links.listJobLocations(db, caller.organizationId, jobId, locationListParams(query)) };
  },

  addJobLocation: async ({ db, caller, params, query, changes }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    await requireLocation(db, caller.organizationId, query.locationId);
    if (await links.addJobLocation(db, caller.organizationId, jobId, query.locationId, query.shouldSetAsDefault ?? false)) changes.markUpdated([jobId]);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  removeJobLocation: async ({ db, caller, params, query, changes }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    await requireLocation(db, caller.organizationId, query.locationId);
    if (await links.removeJobLocation(db, caller.organizationId, jobId, query.locationId)) changes.markUpdated([jobId]);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  listJobUsers: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    return { status: 200, body: await links.listJobUsers(db, caller.organizationId, jobId, listParams(query, { orderBy: 'createdAt' })) };
  },

  addJobUser: async ({ db, caller, params, query, changes }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    await requireUser(db, caller.organizationId, query.userId);
    if (await links.addJobUser(db, caller.organizationId, jobId, query.userId)) changes.markUpdated([jobId]);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  removeJobUser: async ({ db, caller, params, query, changes }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    await requireUser(db, caller.organizationId, query.userId);
    if (await links.removeJobUser(db, caller.organizationId, jobId, query.userId)) changes.markUpdated([jobId]);
    return { status: 200, body: await q.getJobById(db, caller.organizationId, jobId) };
  },

  getNextPurchaseOrderNumber: async ({ db, caller, params }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    return { status: 200, body: { nextPurchaseOrderNumber: await peekNextPurchaseOrderNumber(db, caller.organizationId, jobId) } };
  },

  setNextPurchaseOrderNumber: async ({ db, caller, params, body, changes }) => {
    const orgId = caller.organizationId;
    const jobId = await requireJob(db, orgId, params.jobIdOrCode);
    const org = await db('organizations').where({ id: orgId }).first('po_counter_enabled');
    if (!org?.po_counter_enabled) {
      throw forbidden('Setting the purchase order counter must be enabled for your organization by a support request; contact support to turn it on.');
    }
    const job = await db.transaction(async (tx) => {
      if (await setPurchaseOrderCounter(tx, orgId, jobId, body.nextCounter)) changes.markUpdated([jobId]);
      return oneByIdJson<Schema<'JobWithCounter'>>(tx, q.jobsWithCounter, orgId, jobId);
    });
    return { status: 200, body: job! };
  },
};
