import type { Queryable } from '../../db/knex';
import type { ResourceDeclarations } from '../declarations';
import { entry, locationEntries, one, renamedOf, type Emitter, type FeedObject } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { jobsInOrder, jobs } from './queries';

const job = objectOfWrite('jobs', 'getJob');

/** Locations listing these jobs (attached or as their default). */
async function locationsOfJobs(db: Queryable, organizationId: string, jobIds: string[]): Promise<string[]> {
  const rows: { id: string }[] = await db
    .select('location_id as id')
    .from('job_locations')
    .where('organization_id', organizationId)
    .whereRaw('job_id = ANY(?::uuid[])', [jobIds])
    .union((u) =>
      u
        .select('default_location_id as id')
        .from('jobs')
        .where('organization_id', organizationId)
        .whereRaw('id = ANY(?::uuid[])', [jobIds])
        .whereNotNull('default_location_id'),
    );
  return rows.map((r) => r.id);
}

/** A job write that may have created, or attached, its default location: that location first, then the job(s). */
const jobsWithLocations =
  (event: 'created' | 'updated' | 'upserted'): Emitter =>
  async (reply, ctx) => {
    const jobs: { id: string; defaultLocationId: string | null }[] = Array.isArray(reply) ? reply : [reply];
    type JobInput = { defaultLocation?: unknown; defaultLocationId?: unknown };
    // The body as the contract validated it: a batch's `inputs`, or the one job.
    const body = (ctx.input ?? {}) as JobInput & { inputs?: JobInput[] };
    const inputs = Array.isArray(body.inputs) ? body.inputs : [body];
    const touched = jobs
      .filter((_, i) => inputs[i]?.defaultLocation !== undefined || typeof inputs[i]?.defaultLocationId === 'string')
      .map((j) => j.defaultLocationId);
    const jobEvent = (id: string) => (event === 'upserted' ? (ctx.changes.created.has(id) ? 'created' : 'updated') : event);
    // Locations list their jobs by code and name: a rename shows there too (after the job's entry).
    const listed = event === 'created' ? [] : renamedOf(jobs, ctx);
    const listing = listed.length
      ? (
          await locationsOfJobs(
            ctx.db,
            ctx.organizationId,
            listed.map((j) => j.id),
          )
        ).filter((id) => !touched.includes(id))
      : [];
    return [...(await locationEntries(ctx, touched)), ...jobs.map((j) => entry('job', jobEvent(j.id), j)), ...(await locationEntries(ctx, listing))];
  };

/** The job (the reply) and the location whose `jobs` list changed. */
const jobAndLocation: Emitter = async (reply, ctx) => [entry('job', 'updated', reply as FeedObject), ...(await locationEntries(ctx, [ctx.query.locationId]))];

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const jobsDeclarations: ResourceDeclarations = {
  reconciled: { job: jobs },
  feed: {
    createJob: jobsWithLocations('created'),
    upsertJobs: jobsWithLocations('upserted'),
    updateJob: jobsWithLocations('updated'),
    addJobLocation: jobAndLocation,
    removeJobLocation: jobAndLocation,
    addJobUser: one('job', 'updated'),
    removeJobUser: one('job', 'updated'),
    // The reply is the job plus its counter (JobWithCounter); the entry carries it as replied.
    setNextPurchaseOrderNumber: one('job', 'purchase_order_counter_changed'),
  },
  reads: { job: jobsInOrder },
  objects: {
    updateJob: job,
    // A job's locations and users are part of the job (its read lists them).
    removeJobLocation: job,
    removeJobUser: job,
  },
  batchLists: {
    upsertJobs: 'inputs',
  },
};
