import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { ListParams } from '../../db/list';
import { listJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import { attachToJob, detachFromJob } from '../locations/attachments';
import { listLocations } from '../locations/queries';
import { users } from '../users/queries';

/** A job's locations (attached, or its default) and users. */
export const listJobLocations = (db: Queryable, orgId: string, jobId: string, params: ListParams) =>
  listLocations(db, orgId, params, (q) =>
    q.whereRaw(
      `(EXISTS (SELECT 1 FROM job_locations jl WHERE jl.organization_id = l.organization_id AND jl.job_id = ? AND jl.location_id = l.id)
        OR EXISTS (SELECT 1 FROM jobs dj WHERE dj.organization_id = l.organization_id AND dj.id = ? AND dj.default_location_id = l.id))`,
      [jobId, jobId],
    ),
  );

/**
 * The link functions answer whether they changed a link: a link is not in the job's read, so the
 * feed cannot see it (the handler marks the job changed, src/feed/unchanged.ts); one already made,
 * or already gone, is no change.
 */
const hasLocation = async (db: Queryable, orgId: string, jobId: string, locationId: string) =>
  !!(await db('job_locations').where({ organization_id: orgId, job_id: jobId, location_id: locationId }).first('job_id'));

export async function addJobLocation(db: Knex, orgId: string, jobId: string, locationId: string, setAsDefault: boolean): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (await hasLocation(tx, orgId, jobId, locationId)) {
      if (setAsDefault) await tx('jobs').where({ organization_id: orgId, id: jobId }).update({ default_location_id: locationId, updated_at: tx.fn.now() });
      return false;
    }
    await attachToJob(tx, orgId, [{ jobId, locationId }]);
    if (setAsDefault) await tx('jobs').where({ organization_id: orgId, id: jobId }).update({ default_location_id: locationId, updated_at: tx.fn.now() });
    return true;
  });
}

export async function removeJobLocation(db: Knex, orgId: string, jobId: string, locationId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!(await hasLocation(tx, orgId, jobId, locationId))) return false;
    await detachFromJob(tx, orgId, jobId, locationId);
    return true;
  });
}

export function listJobUsers(db: Queryable, orgId: string, jobId: string, params: ListParams) {
  const q = scoped(db, users, orgId).whereExists((w) =>
    w.select(db.raw('1')).from('job_users as ju').whereRaw('ju.organization_id = usr.organization_id AND ju.user_id = usr.id').where('ju.job_id', jobId),
  );
  return listJson<Schema<'User'>>(db, users, q, params);
}

export async function addJobUser(db: Queryable, orgId: string, jobId: string, userId: string): Promise<boolean> {
  const added = await db('job_users')
    .insert({ organization_id: orgId, job_id: jobId, user_id: userId })
    .onConflict(['organization_id', 'job_id', 'user_id'])
    .ignore()
    .returning('user_id');
  return added.length > 0;
}

export async function removeJobUser(db: Queryable, orgId: string, jobId: string, userId: string): Promise<boolean> {
  return (await db('job_users').where({ organization_id: orgId, job_id: jobId, user_id: userId }).delete()) > 0;
}
