import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneByIdJson, resolveIdWithin, scoped } from '../../db/resource';
import { codeInUse, insertOne, rowOf, softDeleteById, updateById } from '../../db/resource-writes';
import { conflict } from '../../errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

type CostCategory = Schema<'CostCategory'>;

/** Cost categories: global (no job, no phase), job-level (job), phase-level (phase and its job). */
export const costCategories: ResourceDef = {
  table: 'cost_categories',
  alias: 'cc',
  codeColumn: 'cc.code',
  softDelete: true,
  joins: (q) =>
    q
      .leftJoin({ ccj: 'jobs' }, (j) => j.on('ccj.organization_id', 'cc.organization_id').andOn('ccj.id', 'cc.job_id'))
      .leftJoin({ ccp: 'phases' }, (j) => j.on('ccp.organization_id', 'cc.organization_id').andOn('ccp.id', 'cc.phase_id')),
  columns: {
    id: idCol('cc.id'),
    createdAt: tsCol('cc.created_at'),
    code: col('cc.code'),
    description: col('cc.description'),
    updatedAt: tsCol('cc.updated_at'),
    jobId: idCol('cc.job_id'),
    jobCode: col('ccj.code'),
    phaseId: idCol('cc.phase_id'),
    phaseCode: col('ccp.code'),
    // The spec lists the references as job.id/job.code and phase.id/phase.code: both forms are sent.
    job: expr(`CASE WHEN cc.job_id IS NULL THEN NULL ELSE json_build_object('id', cc.job_id, 'code', ccj.code) END`),
    phase: expr(`CASE WHEN cc.phase_id IS NULL THEN NULL ELSE json_build_object('id', cc.phase_id, 'code', ccp.code) END`),
    deletedAt: tsCol('cc.deleted_at'),
  },
  writable: ['code', 'description'],
};

export type CategoryScope =
  { kind: 'global' } | { kind: 'anyJob' } | { kind: 'anyPhase' } | { kind: 'job'; jobId: string } | { kind: 'phase'; jobId: string; phaseId: string };

function inScope(q: Knex.QueryBuilder, scope: CategoryScope): Knex.QueryBuilder {
  switch (scope.kind) {
    case 'global':
      return q.whereNull('cc.job_id').whereNull('cc.phase_id');
    case 'anyJob':
      return q.whereNotNull('cc.job_id').whereNull('cc.phase_id');
    case 'anyPhase':
      // Categories of a deleted phase went with it.
      return q.whereNotNull('cc.phase_id').whereNull('ccp.deleted_at');
    case 'job':
      return q.where('cc.job_id', scope.jobId).whereNull('cc.phase_id');
    case 'phase':
      return q.where('cc.phase_id', scope.phaseId);
  }
}

interface ScopeColumns {
  job_id: string | null;
  phase_id: string | null;
}

const scopeColumns = (scope: CategoryScope): ScopeColumns => ({
  job_id: scope.kind === 'job' || scope.kind === 'phase' ? scope.jobId : null,
  phase_id: scope.kind === 'phase' ? scope.phaseId : null,
});

export interface CategoryChanges {
  code?: string;
  description?: string;
}

export const listCategories = (db: Queryable, orgId: string, scope: CategoryScope, params: ListParams) =>
  listJson<CostCategory>(db, costCategories, inScope(scoped(db, costCategories, orgId), scope), params);

/** The live category behind `:idOrCode` within the scope (an ID of the scope first, then a code). */
export const resolveCategoryId = (db: Queryable, orgId: string, idOrCode: string, scope: CategoryScope): Promise<string | undefined> =>
  resolveIdWithin(db, costCategories, orgId, idOrCode, (q) => inScope(q, scope));

export const getCategoryById = (db: Queryable, orgId: string, id: string): Promise<Json<CostCategory> | undefined> =>
  oneByIdJson<CostCategory>(db, costCategories, orgId, id);

/** 409 when another live category of the same scope (the same job and phase columns) has the code. */
async function ensureCodeFree(db: Queryable, orgId: string, scope: ScopeColumns, code: string, exceptId?: string): Promise<void> {
  const sameScope = (q: Knex.QueryBuilder) => {
    for (const column of ['job_id', 'phase_id'] as const) {
      const value = scope[column];
      if (value) q.where(`cc.${column}`, value);
      else q.whereNull(`cc.${column}`);
    }
    return q;
  };
  if (await codeInUse(db, costCategories, orgId, code, exceptId, sameScope)) {
    throw conflict('body.code', `${code} is already used by another cost category of the same scope`);
  }
}

export async function createCategory(db: Queryable, orgId: string, scope: CategoryScope, input: CategoryChanges): Promise<Json<CostCategory>> {
  const columns = scopeColumns(scope);
  await ensureCodeFree(db, orgId, columns, input.code!);
  return insertOne<CostCategory>(db, costCategories, orgId, { ...columns, ...rowOf(costCategories, input) });
}

export async function updateCategory(db: Queryable, orgId: string, id: string, changes: CategoryChanges): Promise<Json<CostCategory>> {
  if (changes.code !== undefined) {
    const current = await db('cost_categories').where({ organization_id: orgId, id }).first('job_id', 'phase_id');
    await ensureCodeFree(db, orgId, current, changes.code, id);
  }
  return (await updateById<CostCategory>(db, costCategories, orgId, id, rowOf(costCategories, changes)))!;
}

export const deleteCategory = async (db: Queryable, orgId: string, id: string): Promise<Json<CostCategory>> =>
  (await softDeleteById<CostCategory>(db, costCategories, orgId, id))!;
