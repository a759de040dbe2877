import { notFound } from '../errors';
import type { Queryable } from '../db/knex';
import { existsById } from '../db/resource';
import { orNotFound } from '../http/handler';
import { jobId as resolveJobId } from './jobs/queries';
import { orderRows } from './orders/queries';
import { jobScope, resolvePhaseId } from './phases/queries';

/**
 * Lookups several resources share (a job, a job's phase, an order or invoice named in the path),
 * in one place: handlers never import another resource's handlers.
 */
export const missingJob = (idOrCode: string) => notFound(`No job matches ${idOrCode}.`);
export const missingPhase = (idOrCode: string) => notFound(`No phase matches ${idOrCode}.`);
export const missingOrder = (id: string) => notFound(`No order matches ${id}.`);
export const missingInvoice = (id: string) => notFound(`No invoice matches ${id}.`);

/** The job of `:jobIdOrCode`, or 404. */
export async function requireJob(db: Queryable, orgId: string, jobIdOrCode: string): Promise<string> {
  return orNotFound(await resolveJobId(db, orgId, jobIdOrCode), missingJob, jobIdOrCode);
}

/** The phase of `:phaseIdOrCode` among the job's live phases, or 404. */
export async function requireJobPhase(db: Queryable, orgId: string, jobId: string, phaseIdOrCode: string): Promise<string> {
  return orNotFound(await resolvePhaseId(db, orgId, phaseIdOrCode, jobScope(jobId)), missingPhase, phaseIdOrCode);
}

/** 404 unless the ID is a live order of the organization (the parent of items, tags, receipts). */
export async function requireOrder(db: Queryable, orgId: string, orderId: string): Promise<void> {
  if (!(await existsById(db, orderRows, orgId, orderId))) throw missingOrder(orderId);
}
