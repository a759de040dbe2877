import { notFound } from '../errors';
import type { Queryable } from '../db/knex';
import { jobId as resolveJobId } from './jobs/queries';
import { jobScope, resolvePhaseId } from './phases/queries';

/**
 * Lookups several resources share (a job, a job's phase, an order named in the path), in one
 * place: handlers never import another resource's handlers.
 */
export const missingJob = (idOrCode: string) => notFound(`No job matches ${idOrCode}.`);
export const missingPhase = (idOrCode: string) => notFound(`No phase matches ${idOrCode}.`);
export const missingOrder = (id: string) => notFound(`No order matches ${id}.`);

/** The job of `:jobIdOrCode`, or 404. */
export async function requireJob(db: Queryable, orgId: string, jobIdOrCode: string): Promise<string> {
  const jobId = await resolveJobId(db, orgId, jobIdOrCode);
  if (!jobId) throw missingJob(jobIdOrCode);
  return jobId;
}

/** The phase of `:phaseIdOrCode` among the job's live phases, or 404. */
export async function requireJobPhase(db: Queryable, orgId: string, jobId: string, phaseIdOrCode: string): Promise<string> {
  const id = await resolvePhaseId(db, orgId, phaseIdOrCode, jobScope(jobId));
  if (!id) throw missingPhase(phaseIdOrCode);
  return id;
}
