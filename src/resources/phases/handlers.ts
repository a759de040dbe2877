import { notFound } from '../../errors';
import { type Handlers, orNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { upsertPhases } from './batch';
import { upsertedBy } from '../crud-handlers';
import { missingPhase, requireJobPhase } from './lookup';
import { requireJob } from '../jobs/lookup';
import { jobId as resolveJobId } from '../jobs/queries';
import * as q from './queries';
import type { Queryable } from '../../db/knex';

const LIST_DEFAULTS = { orderBy: 'createdAt' };
/** `/global-phases/{phaseIdOrCode}`: an ID reaches any phase, a code a global one. */
async function requireGlobalRoutePhase(db: Queryable, orgId: string, idOrCode: string): Promise<string> {
  return orNotFound(await q.resolvePhaseId(db, orgId, idOrCode, q.GLOBAL, true), missingPhase, idOrCode);
}

export const phaseHandlers: Handlers<
  | 'listGlobalPhases'
  | 'createGlobalPhase'
  | 'upsertPhases'
  | 'getGlobalPhase'
  | 'updateGlobalPhase'
  | 'deleteGlobalPhase'
  | 'listAllJobPhases'
  | 'listJobPhases'
  | 'createJobPhase'
  | 'getJobPhase'
  | 'updateJobPhase'
  | 'deleteJobPhase'
> = {
  listGlobalPhases: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listPhases(db, caller.organizationId, q.GLOBAL, listParams(query, LIST_DEFAULTS)),
  }),

  createGlobalPhase: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createPhase(db, caller.organizationId, null, body),
  }),

  upsertPhases: upsertedBy(upsertPhases),

  getGlobalPhase: async ({ db, caller, params, query }) => {
    const orgId = caller.organizationId;
    let id: string | undefined;
    if (query.jobCode !== undefined) {
      const jobId = await resolveJobId(db, orgId, query.jobCode);
      if (!jobId) throw notFound(`No job matches jobCode ${query.jobCode}.`);
      id = await q.resolvePhaseId(db, orgId, params.phaseIdOrCode, q.jobScope(jobId));
    } else {
      id = await q.resolvePhaseId(db, orgId, params.phaseIdOrCode, q.GLOBAL, true);
    }
    if (!id) throw missingPhase(params.phaseIdOrCode);
    return { status: 200, body: (await q.getPhaseById(db, orgId, id))! };
  },

  updateGlobalPhase: async ({ db, caller, params, body }) => {
    const id = await requireGlobalRoutePhase(db, caller.organizationId, params.phaseIdOrCode);
    return { status: 200, body: await q.updatePhase(db, caller.organizationId, id, body) };
  },

  deleteGlobalPhase: async ({ db, caller, params }) => {
    const id = await requireGlobalRoutePhase(db, caller.organizationId, params.phaseIdOrCode);
    return { status: 200, body: await q.deletePhase(db, caller.organizationId, id) };
  },

  listAllJobPhases: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listPhases(db, caller.organizationId, { kind: 'anyJob' }, listParams(query, LIST_DEFAULTS)),
  }),

  listJobPhases: async ({ db, caller, params, query }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    return { status: 200, body: await q.listPhases(db, caller.organizationId, q.jobScope(jobId), listParams(query, LIST_DEFAULTS)) };
  },

  createJobPhase: async ({ db, caller, params, body }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    return { status: 201, body: await q.createPhase(db, caller.organizationId, jobId, body) };
  },

  getJobPhase: async ({ db, caller, params }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    const id = await requireJobPhase(db, caller.organizationId, jobId, params.phaseIdOrCode);
    return { status: 200, body: (await q.getPhaseById(db, caller.organizationId, id))! };
  },

  updateJobPhase: async ({ db, caller, params, body }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    const id = await requireJobPhase(db, caller.organizationId, jobId, params.phaseIdOrCode);
    return { status: 200, body: await q.updatePhase(db, caller.organizationId, id, body) };
  },

  deleteJobPhase: async ({ db, caller, params }) => {
    const jobId = await requireJob(db, caller.organizationId, params.jobIdOrCode);
    const id = await requireJobPhase(db, caller.organizationId, jobId, params.phaseIdOrCode);
    return { status: 200, body: await q.deletePhase(db, caller.organizationId, id) };
  },
};
