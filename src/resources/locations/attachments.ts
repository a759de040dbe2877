import type { Queryable } from '../../db/knex';

/**
 * Links between jobs and locations. A job is attached to a location through job_locations; its
 * default location is always one of them. When a default location is detached, the location
 * attached to the job earliest among the remaining live ones becomes the default (or none).
 */
export async function attachToJob(db: Queryable, orgId: string, pairs: { jobId: string; locationId: string }[]): Promise<void> {
  if (!pairs.length) return;
  await db.raw(
    `INSERT INTO job_locations (organization_id, job_id, location_id)
     SELECT ?, p.job_id, p.location_id FROM json_to_recordset(?::json) AS p(job_id uuid, location_id uuid)
     ON CONFLICT DO NOTHING`,
    [orgId, JSON.stringify(pairs.map((p) => ({ job_id: p.jobId, location_id: p.locationId })))],
  );
}

/** Jobs whose default location is `locationId` (optionally only `jobId`) get the next one. */
async function reassignDefaults(db: Queryable, orgId: string, locationId: string, jobId?: string): Promise<void> {
  await db.raw(
    `UPDATE jobs j SET updated_at = now(), default_location_id = (
       SELECT jl.location_id FROM job_locations jl
       JOIN locations l ON l.organization_id = jl.organization_id AND l.id = jl.location_id AND l.deleted_at IS NULL
       WHERE jl.organization_id = j.organization_id AND jl.job_id = j.id AND jl.location_id <> ?
       ORDER BY jl.created_at, jl.location_id LIMIT 1)
     WHERE j.organization_id = ? AND j.default_location_id = ? ${jobId ? 'AND j.id = ?' : ''}`,
    jobId ? [locationId, orgId, locationId, jobId] : [locationId, orgId, locationId],
  );
}

export async function detachFromJob(db: Queryable, orgId: string, jobId: string, locationId: string): Promise<void> {
  await db('job_locations').where({ organization_id: orgId, job_id: jobId, location_id: locationId }).delete();
  await reassignDefaults(db, orgId, locationId, jobId);
}

/** A deleted location leaves every job and vendor it was attached to. */
export async function detachEverywhere(db: Queryable, orgId: string, locationId: string): Promise<void> {
  await db('job_locations').where({ organization_id: orgId, location_id: locationId }).delete();
  await reassignDefaults(db, orgId, locationId);
  await db('vendors').where({ organization_id: orgId, location_id: locationId }).update({ location_id: null, updated_at: db.fn.now() });
}
