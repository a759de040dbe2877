import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import { ResourceDef, existsById } from '../../db/resource';
import { checkCodeFree, insertOne, rowOf, updateById } from '../../db/resource-writes';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

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
  writable: ['code', 'name'],
};

/** A Group object built from a row aliased `g` (for nested lists such as a job's groups). */
export const GROUP_JSON = `json_build_object('id', g.id, 'code', g.code, 'name', g.name, 'createdAt', api_ts(g.created_at), 'updatedAt', api_ts(g.updated_at), 'deletedAt', api_ts(g.deleted_at), 'createdById', g.created_by_id)`;

/** A group's code is optional: only a given one must be free. */
export async function createGroup(db: Queryable, orgId: string, userId: string, input: Schema<'GroupCreate'>): Promise<Json<Group>> {
  if (input.code) await checkCodeFree(db, groups, orgId, input.code);
  return insertOne<Group>(db, groups, orgId, { ...rowOf(groups, input), created_by_id: userId });
}

export async function updateGroup(db: Queryable, orgId: string, id: string, changes: Schema<'GroupUpdate'>): Promise<Json<Group> | undefined> {
  if (!(await existsById(db, groups, orgId, id))) return undefined;
  if (changes.code) await checkCodeFree(db, groups, orgId, changes.code, id);
  return updateById<Group>(db, groups, orgId, id, rowOf(groups, changes));
}
