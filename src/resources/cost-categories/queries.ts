import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, idCol, isUuid, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneJson, scoped, whereId } from '../../db/resource';
import { conflict } from '../../http/errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';

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
    deletedAt: tsCol('cc.deleted_at'),
  },
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

const scopeColumns = (scope: CategoryScope) => ({
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
export async function resolveCategoryId(db: Queryable, orgId: string, idOrCode: string, scope: CategoryScope): Promise<string | undefined> {
  if (isUuid(idOrCode)) {
    const row = await inScope(scoped(db, costCategories, orgId), scope)
      .where('cc.id', idOrCode)
      .first('cc.id');
    if (row) return row.id;
  }
  const row = await inScope(scoped(db, costCategories, orgId), scope)
    .where('cc.code', idOrCode)
    .first('cc.id');
  return row?.id;
}

export const getCategoryById = (db: Queryable, orgId: string, id: string, includeDeleted = false): Promise<Json<CostCategory> | undefined> =>
  oneJson<CostCategory>(db, costCategories, whereId(scoped(db, costCategories, orgId, { includeDeleted }), costCategories, id));

async function ensureCodeFree(
  db: Queryable,
  orgId: string,
  scope: { job_id: string | null; phase_id: string | null },
  code: string,
  exceptId?: string,
): Promise<void> {
  const q = db('cost_categories').where({ organization_id: orgId, code }).whereNull('deleted_at');
  for (const column of ['job_id', 'phase_id'] as const) {
    const value = scope[column];
    if (value) q.where(column, value);
    else q.whereNull(column);
  }
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw conflict('body.code', `${code} is already used by another cost category of the same scope`);
}

export async function createCategory(db: Queryable, orgId: string, scope: CategoryScope, input: CategoryChanges): Promise<Json<CostCategory>> {
  const columns = scopeColumns(scope);
  await ensureCodeFree(db, orgId, columns, input.code!);
  const [row] = await db('cost_categories')
    .insert({ organization_id: orgId, ...columns, code: input.code, description: input.description })
    .returning('id');
  return (await getCategoryById(db, orgId, row.id))!;
}

export async function updateCategory(db: Queryable, orgId: string, id: string, changes: CategoryChanges): Promise<Json<CostCategory>> {
  if (changes.code !== undefined) {
    const current = await db('cost_categories').where({ organization_id: orgId, id }).first('job_id', 'phase_id');
    await ensureCodeFree(db, orgId, current, changes.code, id);
  }
  await db('cost_categories').where({ organization_id: orgId, id }).update({ code: changes.code, description: changes.description, updated_at: db.fn.now() });
  return (await getCategoryById(db, orgId, id))!;
}

export async function deleteCategory(db: Queryable, orgId: string, id: string): Promise<Json<CostCategory>> {
  await db('cost_categories').where({ organization_id: orgId, id }).update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
  return (await getCategoryById(db, orgId, id, true))!;
}
