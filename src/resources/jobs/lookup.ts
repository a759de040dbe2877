import { notFound } from '../../errors';
import type { Queryable } from '../../db/knex';
import { orNotFound } from '../../http/handler';
import { jobId } from './queries';

/** A job named in a path (its own operations', and those of what it holds: phases, categories, bills of materials). */
export const missingJob = (idOrCode: string) => notFound(`No job matches ${idOrCode}.`);

/** The job of `:jobIdOrCode`, or 404. */
export async function requireJob(db: Queryable, orgId: string, jobIdOrCode: string): Promise<string> {
  return orNotFound(await jobId(db, orgId, jobIdOrCode), missingJob, jobIdOrCode);
}
