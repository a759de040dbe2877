import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, idCol, isUuid, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, allJson, listJson, oneByIdJson, resolveIdWithin, scoped } from '../../db/resource';
import { codeInUse, insertOne, rowOf, softDeleteById, updateById } from '../../db/resource-writes';
import { conflict } from '../../errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

type Phase = Schema<'Phase'>;

/** Phases: global (job_id NULL) or of one job; the job is flattened to jobId/jobCode. */
export const phases: ResourceDef = {
  table: 'phases',
  alias: 'ph',
  codeColumn: 'ph.code',
  softDelete: true,
  joins: (q) => q.leftJoin({ phj: 'jobs' }, (j) => j.on('phj.organization_id', 'ph.organization_id').andOn('phj.id', 'ph.job_id')),
  columns: {
    id: idCol('ph.id'),
    createdAt: tsCol('ph.created_at'),
    code: col('ph.code'),
    description: col('ph.description'),
    jobId: idCol('ph.job_id'),
    jobCode: col('phj.code'),
    updatedAt: tsCol('ph.updated_at'),
    defaultGLCode: col('ph.default_gl_code'),
    deletedAt: tsCol('ph.deleted_at'),
  },
  writable: ['code', 'description', 'defaultGLCode'],
};

/** Which phases a request sees: the global ones, those of every job, or those of one job. */
export type PhaseScope = { kind: 'global' } | { kind: 'anyJob' } | { kind: 'job'; jobId: string };

export const GLOBAL: PhaseScope = { kind: 'global' };
export const jobScope = (jobId: string): PhaseScope => ({ kind: 'job', jobId });

function inScope(q: Knex.QueryBuilder, scope: PhaseScope): Knex.QueryBuilder {
  if (scope.kind === 'global') return q.whereNull('ph.job_id');
  if (scope.kind === 'anyJob') return q.whereNotNull('ph.job_id');
  return q.where('ph.job_id', scope.jobId);
}

export interface PhaseChanges {
  code?: string;
  description?: string;
  defaultGLCode?: string | null;
}

export const listPhases = (db: Queryable, orgId: string, scope: PhaseScope, params: ListParams) =>
  listJson<Phase>(db, phases, inScope(scoped(db, phases, orgId), scope), params);

/**
 * The live phase behind `:idOrCode`: a code is looked up in `scope`; an ID in `scope` too, or in
 * every scope with `idInAnyScope` (IDs are unique, so `/global-phases/{phaseIdOrCode}` reaches job phases by ID).
 */
export const resolvePhaseId = (db: Queryable, orgId: string, idOrCode: string, scope: PhaseScope, idInAnyScope = false): Promise<string | undefined> =>
  resolveIdWithin(db, phases, orgId, idOrCode, (q) => inScope(q, scope), idInAnyScope ? (q) => q : undefined);

export const getPhaseById = (db: Queryable, orgId: string, id: string): Promise<Json<Phase> | undefined> => oneByIdJson<Phase>(db, phases, orgId, id);

/** 409 when another live phase of the same scope (the job, or the global phases) has the code. */
async function ensureCodeFree(db: Queryable, orgId: string, jobId: string | null, code: string, exceptId?: string): Promise<void> {
  if (await codeInUse(db, phases, orgId, code, exceptId, (q) => inScope(q, jobId ? jobScope(jobId) : GLOBAL))) {
    throw conflict('body.code', `${code} is already used by another ${jobId ? 'phase of the job' : 'global phase'}`);
  }
}

export async function createPhase(db: Queryable, orgId: string, jobId: string | null, input: PhaseChanges): Promise<Json<Phase>> {
  await ensureCodeFree(db, orgId, jobId, input.code!);
  return insertOne<Phase>(db, phases, orgId, { ...rowOf(phases, input), job_id: jobId });
}

export async function updatePhase(db: Queryable, orgId: string, id: string, changes: PhaseChanges): Promise<Json<Phase>> {
  if (changes.code !== undefined) {
    const current = await db('phases').where({ organization_id: orgId, id }).first('job_id');
    await ensureCodeFree(db, orgId, current.job_id, changes.code, id);
  }
  return (await updateById<Phase>(db, phases, orgId, id, rowOf(phases, changes)))!;
}

export const deletePhase = async (db: Queryable, orgId: string, id: string): Promise<Json<Phase>> => (await softDeleteById<Phase>(db, phases, orgId, id))!;

/** Phases by ID as a JSON array in the order of `ids` (one statement). */
export function phasesInOrder(db: Queryable, orgId: string, ids: string[]): Promise<Json<Phase[]>> {
  const q = scoped(db, phases, orgId).whereRaw('ph.id = ANY(?::uuid[])', [ids]);
  // ids come from RETURNING (valid uuids), so they can be inlined into the ORDER BY.
  const list = ids
    .filter(isUuid)
    .map((id) => `'${id}'`)
    .join(',');
  return allJson<Phase>(db, phases, q, `array_position(ARRAY[${list}]::uuid[], ph.id)`);
}
