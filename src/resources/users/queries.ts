import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import { ResourceDef, scoped, whereId } from '../../db/resource';

/** Users: the column map every resource that returns User objects shares. */
export const users: ResourceDef = {
  table: 'users',
  alias: 'usr',
  columns: {
    id: idCol('usr.id'),
    admin: col('usr.admin'),
    avatarUrl: col('usr.avatar_url'),
    displayName: col('usr.display_name'),
    email: col('usr.email'),
    firstName: col('usr.first_name'),
    lastName: col('usr.last_name'),
    phone: col('usr.phone'),
    role: col('usr.role'),
    createdAt: tsCol('usr.created_at'),
    updatedAt: tsCol('usr.updated_at'),
  },
};

/** Whether a user ID belongs to the organization (for references from other resources). */
export async function userExists(db: Queryable, orgId: string, id: string): Promise<boolean> {
  return !!(await whereId(scoped(db, users, orgId), users, id).first('usr.id'));
}
