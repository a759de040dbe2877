import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneJson, scoped, whereId } from '../../db/resource';
import { conflict } from '../../http/errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';

type Group = Schema<'Group'>;

export const groups: ResourceDef = {
  table: 'groups',
  alias: 'g',
  softDelete: true,
  columns: {
    id: idCol('g.id'),
    code: col('g.code'),
    name: col('g.name'),
    createdAt: tsCol('g.created_at'),
    updatedAt: tsCol('g.updated_at'),
    deletedAt: tsCol('g.deleted_at'),
    createdById: idCol('g.created_by_id'),
  },
};

/** A Group object built from a row aliased `g` (for nested lists such as a job's groups). */
export const GROUP_JSON = `json_build_object('id', g.id, 'code', g.code, 'name', g.name, 'createdAt', api_ts(g.created_at), 'updatedAt', api_ts(g.updated_at), 'deletedAt', api_ts(g.deleted_at), 'createdById', g.created_by_id)`;

export const listGroups = (db: Queryable, orgId: string, params: ListParams) => listJson<Group>(db, groups, scoped(db, groups, orgId), params);

export const getGroup = (db: Queryable, orgId: string, id: string): Promise<Json<Group> | undefined> =>
  oneJson<Group>(db, groups, whereId(scoped(db, groups, orgId), groups, id));

async function checkCodeFree(db: Queryable, orgId: string, code: string | null | undefined, exceptId?: string): Promise<void> {
  if (!code) return;
  const q = scoped(db, groups, orgId).where('g.code', code);
  if (exceptId) q.whereNot('g.id', exceptId);
  if (await q.first('g.id')) throw conflict('body.code', `${code} is already used`);
}

export async function createGroup(db: Queryable, orgId: string, userId: string, input: Schema<'GroupCreate'>): Promise<Json<Group>> {
  await checkCodeFree(db, orgId, input.code);
  const [row] = await db('groups')
    .insert({ organization_id: orgId, name: input.name, code: input.code ?? null, created_by_id: userId })
    .returning('id');
  return (await getGroup(db, orgId, row.id))!;
}

export async function updateGroup(db: Queryable, orgId: string, id: string, changes: Schema<'GroupUpdate'>): Promise<Json<Group> | undefined> {
  if (!(await whereId(scoped(db, groups, orgId), groups, id).first('g.id'))) return undefined;
  await checkCodeFree(db, orgId, changes.code, id);
  await db('groups').where({ organization_id: orgId, id }).update({ name: changes.name, code: changes.code, updated_at: db.fn.now() });
  return getGroup(db, orgId, id);
}
