import type { Caller } from '../../auth/caller';
import type { Db, Queryable } from '../../db/knex';
import { notFound } from '../../errors';
import { type Handlers, orNotFound } from '../../http/handler';
import { ListQuery, listParams } from '../../http/list-params';
import { requireJob } from '../jobs/lookup';
import { requireJobPhase } from '../phases/lookup';
import * as q from './queries';

const LIST_DEFAULTS = { orderBy: 'createdAt' };
const GLOBAL: q.CategoryScope = { kind: 'global' };

const missing = (idOrCode: string) => notFound(`No cost category matches ${idOrCode}.`);

const jobScopeOf = async (db: Queryable, orgId: string, jobIdOrCode: string): Promise<q.CategoryScope> => ({
  kind: 'job',
  jobId: await requireJob(db, orgId, jobIdOrCode),
});

/** The phase must be a live phase of the job in the path. */
async function phaseScopeOf(db: Queryable, orgId: string, jobIdOrCode: string, phaseIdOrCode: string): Promise<q.CategoryScope> {
  const jobId = await requireJob(db, orgId, jobIdOrCode);
  return { kind: 'phase', jobId, phaseId: await requireJobPhase(db, orgId, jobId, phaseIdOrCode) };
}

interface Base<P> {
  db: Db;
  caller: Caller;
  params: P;
}

/** The category's path parameter, the same in every scope. */
type Named = { categoryIdOrCode: string };

/**
 * The operations on the categories of one scope (global, a job's, a phase's): `scopeOf` resolves
 * the scope from the path (404 for a missing job or phase).
 */
function inScope<P>(scopeOf: (db: Queryable, orgId: string, params: P) => Promise<q.CategoryScope>) {
  /** The category the path names within its scope, or 404. */
  const find = async (db: Queryable, orgId: string, params: P & Named) =>
    orNotFound(await q.resolveCategoryId(db, orgId, params.categoryIdOrCode, await scopeOf(db, orgId, params)), missing, params.categoryIdOrCode);
  return {
    list: async ({ db, caller, params, query }: Base<P> & { query: ListQuery }) => ({
      status: 200 as const,
      body: await q.listCategories(db, caller.organizationId, await scopeOf(db, caller.organizationId, params), listParams(query, LIST_DEFAULTS)),
    }),
    create: async ({ db, caller, params, body }: Base<P> & { body: q.CategoryChanges }) => ({
      status: 201 as const,
      body: await q.createCategory(db, caller.organizationId, await scopeOf(db, caller.organizationId, params), body),
    }),
    get: async ({ db, caller, params }: Base<P & Named>) => ({
      status: 200 as const,
      body: (await q.getCategoryById(db, caller.organizationId, await find(db, caller.organizationId, params)))!,
    }),
    update: async ({ db, caller, params, body }: Base<P & Named> & { body: q.CategoryChanges }) => ({
      status: 200 as const,
      body: await q.updateCategory(db, caller.organizationId, await find(db, caller.organizationId, params), body),
    }),
    remove: async ({ db, caller, params }: Base<P & Named>) => ({
      status: 200 as const,
      body: await q.deleteCategory(db, caller.organizationId, await find(db, caller.organizationId, params)),
    }),
  };
}

const global = inScope(async () => GLOBAL);
const ofJob = inScope((db, orgId, p: { jobIdOrCode: string }) => jobScopeOf(db, orgId, p.jobIdOrCode));
const ofPhase = inScope((db, orgId, p: { jobIdOrCode: string; phaseIdOrCode: string }) => phaseScopeOf(db, orgId, p.jobIdOrCode, p.phaseIdOrCode));
/** Every category of a kind (`/job-categories`, `/phase-categories`): nothing in the path to resolve. */
const allOf = (kind: 'anyJob' | 'anyPhase') => inScope(async () => ({ kind })).list;

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
  listGlobalCategories: global.list,
  createGlobalCategory: global.create,
  getGlobalCategory: global.get,
  updateGlobalCategory: global.update,
  deleteGlobalCategory: global.remove,

  listAllPhaseCategories: allOf('anyPhase'),
  listJobPhaseCategories: ofPhase.list,
  createJobPhaseCategory: ofPhase.create,
  getJobPhaseCategory: ofPhase.get,
  updateJobPhaseCategory: ofPhase.update,
  deleteJobPhaseCategory: ofPhase.remove,

  listAllJobCategories: allOf('anyJob'),
  listJobCategories: ofJob.list,
  createJobCategory: ofJob.create,
  getJobCategory: ofJob.get,
  updateJobCategory: ofJob.update,
  deleteJobCategory: ofJob.remove,
};
