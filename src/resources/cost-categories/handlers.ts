import type { Queryable } from '../../db/knex';
import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { requireJob, requireJobPhase } from '../lookups';
import * as q from './queries';

const LIST_DEFAULTS = { orderBy: 'createdAt' };
const GLOBAL: q.CategoryScope = { kind: 'global' };

async function requireCategory(db: Queryable, orgId: string, idOrCode: string, scope: q.CategoryScope): Promise<string> {
  const id = await q.resolveCategoryId(db, orgId, idOrCode, scope);
  if (!id) throw notFound(`No cost category matches ${idOrCode}.`);
  return id;
}

const jobScopeOf = async (db: Queryable, orgId: string, jobIdOrCode: string): Promise<q.CategoryScope> => ({
  kind: 'job',
  jobId: await requireJob(db, orgId, jobIdOrCode),
});

/** The phase must be a live phase of the job in the path. */
async function phaseScopeOf(db: Queryable, orgId: string, jobIdOrCode: string, phaseIdOrCode: string): Promise<q.CategoryScope> {
  const jobId = await requireJob(db, orgId, jobIdOrCode);
  return { kind: 'phase', jobId, phaseId: await requireJobPhase(db, orgId, jobId, phaseIdOrCode) };
}

export const costCategoryHandlers: Handlers<
  | 'listGlobalCategories'
  | 'createGlobalCategory'
  | 'getGlobalCategory'
  | 'updateGlobalCategory'
  | 'deleteGlobalCategory'
  | 'listAllPhaseCategories'
  | 'listJobPhaseCategories'
  | 'createJobPhaseCategory'
  | 'getJobPhaseCategory'
  | 'updateJobPhaseCategory'
  | 'deleteJobPhaseCategory'
  | 'listAllJobCategories'
  | 'listJobCategories'
  | 'createJobCategory'
  | 'getJobCategory'
  | 'updateJobCategory'
  | 'deleteJobCategory'
> = {
  listGlobalCategories: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listCategories(db, caller.organizationId, GLOBAL, listParams(query, LIST_DEFAULTS)),
  }),
  createGlobalCategory: async ({ db, caller, body }) => ({ status: 201, body: await q.createCategory(db, caller.organizationId, GLOBAL, body) }),
  getGlobalCategory: async ({ db, caller, params }) => {
    const id = await requireCategory(db, caller.organizationId, params.idOrCode, GLOBAL);
    return { status: 200, body: (await q.getCategoryById(db, caller.organizationId, id))! };
  },
  updateGlobalCategory: async ({ db, caller, params, body }) => {
    const id = await requireCategory(db, caller.organizationId, params.idOrCode, GLOBAL);
    return { status: 200, body: await q.updateCategory(db, caller.organizationId, id, body) };
  },
  deleteGlobalCategory: async ({ db, caller, params }) => {
    const id = await requireCategory(db, caller.organizationId, params.idOrCode, GLOBAL);
    return { status: 200, body: await q.deleteCategory(db, caller.organizationId, id) };
  },

  listAllPhaseCategories: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listCategories(db, caller.organizationId, { kind: 'anyPhase' }, listParams(query, LIST_DEFAULTS)),
  }),
  listJobPhaseCategories: async ({ db, caller, params, query }) => {
    const scope = await phaseScopeOf(db, caller.organizationId, params.jobIdOrCode, params.phaseIdOrCode);
    return { status: 200, body: await q.listCategories(db, caller.organizationId, scope, listParams(query, LIST_DEFAULTS)) };
  },
  createJobPhaseCategory: async ({ db, caller, params, body }) => {
    const scope = await phaseScopeOf(db, caller.organizationId, params.jobIdOrCode, params.phaseIdOrCode);
    return { status: 201, body: await q.createCategory(db, caller.organizationId, scope, body) };
  },
  getJobPhaseCategory: async ({ db, caller, params }) => {
    const scope = await phaseScopeOf(db, caller.organizationId, params.jobIdOrCode, params.phaseIdOrCode);
    const id = await requireCategory(db, caller.organizationId, params.categoryIdOrCode, scope);
    return { status: 200, body: (await q.getCategoryById(db, caller.organizationId, id))! };
  },
  updateJobPhaseCategory: async ({ db, caller, params, body }) => {
    const scope = await phaseScopeOf(db, caller.organizationId, params.jobIdOrCode, params.phaseIdOrCode);
    const id = await requireCategory(db, caller.organizationId, params.categoryIdOrCode, scope);
    return { status: 200, body: await q.updateCategory(db, caller.organizationId, id, body) };
  },
  deleteJobPhaseCategory: async ({ db, caller, params }) => {
    const scope = await phaseScopeOf(db, caller.organizationId, params.jobIdOrCode, params.phaseIdOrCode);
    const id = await requireCategory(db, caller.organizationId, params.categoryIdOrCode, scope);
    return { status: 200, body: await q.deleteCategory(db, caller.organizationId, id) };
  },

  listAllJobCategories: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listCategories(db, caller.organizationId, { kind: 'anyJob' }, listParams(query, LIST_DEFAULTS)),
  }),
  listJobCategories: async ({ db, caller, params, query }) => {
    const scope = await jobScopeOf(db, caller.organizationId, params.jobIdOrCode);
    return { status: 200, body: await q.listCategories(db, caller.organizationId, scope, listParams(query, LIST_DEFAULTS)) };
  },
  createJobCategory: async ({ db, caller, params, body }) => {
    const scope = await jobScopeOf(db, caller.organizationId, params.jobIdOrCode);
    return { status: 201, body: await q.createCategory(db, caller.organizationId, scope, body) };
  },
  getJobCategory: async ({ db, caller, params }) => {
    const scope = await jobScopeOf(db, caller.organizationId, params.jobIdOrCode);
    const id = await requireCategory(db, caller.organizationId, params.categoryIdOrCode, scope);
    return { status: 200, body: (await q.getCategoryById(db, caller.organizationId, id))! };
  },
  updateJobCategory: async ({ db, caller, params, body }) => {
    const scope = await jobScopeOf(db, caller.organizationId, params.jobIdOrCode);
    const id = await requireCategory(db, caller.organizationId, params.categoryIdOrCode, scope);
    return { status: 200, body: await q.updateCategory(db, caller.organizationId, id, body) };
  },
  deleteJobCategory: async ({ db, caller, params }) => {
    const scope = await jobScopeOf(db, caller.organizationId, params.jobIdOrCode);
    const id = await requireCategory(db, caller.organizationId, params.categoryIdOrCode, scope);
    return { status: 200, body: await q.deleteCategory(db, caller.organizationId, id) };
  },
};
