import { notFound } from '../../errors';
import type { Queryable } from '../../db/knex';
import { orNotFound } from '../../http/handler';
import { jobScope, resolvePhaseId } from './queries';

/** A phase named in a path (its own operations', and its cost categories'). */
export const missingPhase = (idOrCode: string) => notFound(`No phase matches ${idOrCode}.`);

/** The phase of `:phaseIdOrCode` among the job's live phases, or 404. */
export async function requireJobPhase(db: Queryable, orgId: string, jobId: string, phaseIdOrCode: string): Promise<string> {
  return orNotFound(await resolvePhaseId(db, orgId, phaseIdOrCode, jobScope(jobId)), missingPhase, phaseIdOrCode);
}
