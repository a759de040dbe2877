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

export async function addJobLocation(db: Knex, orgId: string, jobId: string, locationId: string, setAsDefault: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    await attachToJob(tx, orgId, [{ jobId, locationId }]);
    if (setAsDefault) await tx('jobs').where({ organization_id: orgId, id: jobId }).update({ default_location_id: locationId, updated_at: tx.fn.now() });
  });
}

export async function removeJobLocation(db: Knex, orgId: string, jobId: string, locationId: string): Promise<void> {
  await db.transaction((tx) => detachFromJob(tx, orgId, jobId, locationId));
}

export function listJobUsers(db: Queryable, orgId: string, jobId: string, params: ListParams) {
  const q = scoped(db, users, orgId).whereExists((w) =>
    w.select(db.raw('1')).from('job_users as ju').whereRaw('ju.organization_id = usr.organization_id AND ju.user_id = usr.id').where('ju.job_id', jobId),
  );
  return listJson<Schema<'User'>>(db, users, q, params);
}

export async function addJobUser(db: Queryable, orgId: string, jobId: string, userId: string): Promise<void> {
  await db('job_users').insert({ organization_id: orgId, job_id: jobId, user_id: userId }).onConflict(['organization_id', 'job_id', 'user_id']).ignore();
}

export async function removeJobUser(db: Queryable, orgId: string, jobId: string, userId: string): Promise<void> {
  await db('job_users').where({ organization_id: orgId, job_id: jobId, user_id: userId }).delete();
}
