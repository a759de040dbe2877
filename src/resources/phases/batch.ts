import type { Db } from '../../db/knex';
import { INDEX_TEXT_TOO_LONG, tooLongToIndex } from '../../db/pg-errors';
import { BatchOutcome, NONE_REJECTED, RejectedElements, UNRECORDED, checkBatchSize, checkElements, insertedIds, upsertRecordset } from '../../db/batch';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { findJobs } from './job-lookup';
import { phasesInOrder } from './queries';

type PhaseUpsert = Schema<'PhaseUpsert'>;
type Phase = Schema<'Phase'>;

/**
 * POST /global-phases/batch: every element is validated (jobs looked up with one query) before
 * anything is written; then one INSERT ... ON CONFLICT statement on the live-phase unique index
 * writes the whole batch, and one statement reads it back in input order.
 */
export async function upsertPhases(
  db: Db,
  orgId: string,
  inputs: PhaseUpsert[],
  outcome: BatchOutcome = UNRECORDED,
  rejected: RejectedElements = NONE_REJECTED,
): Promise<Json<Phase[]>> {
  checkBatchSize(inputs);
  const { errors, accepted } = checkElements(inputs, rejected);
  const jobs = await findJobs(
    db,
    orgId,
    accepted.map(({ input }) => input.jobId).filter((v): v is string => typeof v === 'string'),
    accepted.map(({ input }) => input.jobCode).filter((v): v is string => typeof v === 'string'),
  );
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const byCode = new Map(jobs.map((j) => [j.code, j]));

  const rows = accepted.map(({ input, position: i }) => {
    if (typeof input.code !== 'string' || input.code.trim() === '') errors.add(i, 'code is required');
    if (typeof input.description !== 'string') errors.add(i, 'description is required');
    else if (tooLongToIndex(input.description)) errors.addViolation(i, { field: 'description', rule: 'maxLength', message: INDEX_TEXT_TOO_LONG });
    const viaId = input.jobId == null ? undefined : byId.get(input.jobId.toLowerCase());
    const viaCode = input.jobCode == null ? undefined : byCode.get(input.jobCode);
    if (input.jobId != null && !viaId) errors.add(i, `jobId ${input.jobId} does not match a job`);
    if (input.jobCode != null && !viaCode) errors.add(i, `jobCode ${input.jobCode} does not match a job`);
    if (viaId && viaCode && viaId.id !== viaCode.id) errors.add(i, `jobId ${input.jobId} and jobCode ${input.jobCode} name different jobs`);
    const job = viaId ?? viaCode;
    return {
      organization_id: orgId,
      job_id: job?.id ?? null,
      code: input.code,
      description: input.description,
      default_gl_code: input.defaultGLCode ?? null,
    };
  });
  errors.addDuplicates(
    rows.map((r, k) => ({ position: accepted[k].position, key: typeof r.code === 'string' ? JSON.stringify([r.job_id, r.code]) : undefined })),
    (key) => {
      const [jobId, code] = JSON.parse(key) as [string | null, string];
      return jobId ? `code ${code} of job ${byId.get(jobId)?.code}` : `global code ${code}`;
    },
  );
  // Past this point every element was accepted: `rows` follows `inputs`.
  errors.throwIfAny();

  return db.transaction(async (tx) => {
    const written = await upsertRecordset<{ id: string; job_id: string | null; code: string; xmax: string }>(tx, 'phases', rows, {
      conflict: '(organization_id, job_id, code) WHERE deleted_at IS NULL',
      update: ['description', 'default_gl_code'],
      keepWhenNull: ['default_gl_code'],
      nullableKeys: ['job_id'],
      returning: ['id', 'job_id', 'code', 'xmax'],
    });
    outcome.markCreated(insertedIds(written));
    const idOf = new Map(written.map((w) => [JSON.stringify([w.job_id, w.code]), w.id]));
    return phasesInOrder(
      tx,
      orgId,
      rows.map((r) => idOf.get(JSON.stringify([r.job_id, r.code]))!),
    );
  });
}
