import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { changedReference, existingIds, isReference, missingOf } from '../../db/refs';
import { ResourceDef, allJson, oneByIdJson, resolveId, scoped, whereIdOrCode } from '../../db/resource';
import { checkCodeFree, rowOf, updateById } from '../../db/resource-writes';
import { invalidField, notFound } from '../../errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { GROUP_JSON } from '../groups/queries';
import { attachToJob } from '../locations/attachments';
import { checkLocationInput, currentLocation, insertLocation, locationType, updateLocationRow } from '../locations/queries';

type Job = Schema<'Job'>;
type DefaultLocationInput = Schema<'DefaultLocationInput'>;

const JOB_GROUPS = `(SELECT coalesce(json_agg(${GROUP_JSON} ORDER BY g.name, g.id), '[]'::json)
  FROM job_groups jg JOIN groups g ON g.organization_id = jg.organization_id AND g.id = jg.group_id
  WHERE jg.organization_id = j.organization_id AND jg.job_id = j.id AND g.deleted_at IS NULL)`;

export const jobs: ResourceDef = {
  table: 'jobs',
  alias: 'j',
  codeColumn: 'j.code',
  columns: {
    id: idCol('j.id'),
    code: col('j.code'),
    name: col('j.name'),
    createdAt: tsCol('j.created_at'),
    updatedAt: tsCol('j.updated_at'),
    defaultLocationId: idCol('j.default_location_id'),
    defaultTaxCodeId: idCol('j.default_tax_code_id'),
    startDate: tsCol('j.start_date'),
    state: col('j.state'),
    groups: expr(JOB_GROUPS),
  },
  // The default location is written as the request resolves it (an ID given, or an inline location).
  writable: ['code', 'name', 'defaultTaxCodeId', 'startDate', 'state'],
};

/** A job with its purchase order numbering (the answer of POST .../nextPurchaseOrderNumber). */
export const jobsWithCounter: ResourceDef = {
  ...jobs,
  columns: {
    ...jobs.columns,
    hasPhaseCodes: expr('EXISTS (SELECT 1 FROM phases p WHERE p.organization_id = j.organization_id AND p.job_id = j.id AND p.deleted_at IS NULL)'),
    nextPurchaseOrderCounter: expr('j.next_po_counter'),
  },
};

/** A job by the ID the request has resolved (or just written). */
export const getJobById = (db: Queryable, orgId: string, id: string) => oneByIdJson<Job>(db, jobs, orgId, id) as Promise<Json<Job>>;

/** The ID behind `:jobIdOrCode` (lookups.ts requireJob answers 404 for none). */
export const jobId = (db: Queryable, orgId: string, idOrCode: string) => resolveId(db, jobs, orgId, idOrCode);

/** Jobs by ID in the order of `ids` (one array parameter, joined with its positions). */
export function jobsInOrder(db: Queryable, orgId: string, ids: string[]): Promise<Json<Job[]>> {
  const q = scoped(db, jobs, orgId).joinRaw('JOIN unnest(?::uuid[]) WITH ORDINALITY AS wanted(id, position) ON wanted.id = j.id', [ids]);
  return allJson<Job>(db, jobs, q, 'wanted.position');
}

interface JobRefs {
  defaultLocationId?: string | null;
  defaultLocation?: DefaultLocationInput;
  defaultTaxCodeId?: string | null;
  groupIds?: string[];
}

/**
 * Every referenced ID must be the organization's: a foreign one is answered like a missing one.
 * `current` (an update) holds the job's tax code: left as it is, it is not looked up.
 */
async function checkRefs(db: Queryable, orgId: string, input: JobRefs, current?: { default_tax_code_id: string | null }): Promise<void> {
  if (input.defaultLocationId !== undefined && input.defaultLocation !== undefined) {
    throw invalidField('body.defaultLocation', 'exclusive', 'give either defaultLocationId or defaultLocation, not both');
  }
  if (isReference(input.defaultLocationId) && !(await locationType(db, orgId, input.defaultLocationId))) {
    throw notFound(`body.defaultLocationId: no location ${input.defaultLocationId} exists in your organization.`);
  }
  if (
    changedReference(input.defaultTaxCodeId, current?.default_tax_code_id) &&
    !(await existingIds(db, 'tax_codes', orgId, [input.defaultTaxCodeId], { softDelete: true })).size
  ) {
    throw notFound(`body.defaultTaxCodeId: no tax code ${input.defaultTaxCodeId} exists in your organization.`);
  }
  if (input.groupIds?.length) {
    const missing = missingOf(input.groupIds, await existingIds(db, 'groups', orgId, input.groupIds, { softDelete: true }));
    if (missing.length) throw notFound(`body.groupIds: no group ${missing.join(', ')} exists in your organization.`);
  }
}

/**
 * Replaces the groups of the given jobs: a few statements for any number of jobs. A job whose
 * groups this changes gets a new updated_at (its read shows them); one whose groups stay gets none.
 */
export async function replaceJobGroups(db: Queryable, orgId: string, groupsByJob: Map<string, string[]>): Promise<void> {
  if (!groupsByJob.size) return;
  const wanted = new Map([...groupsByJob].map(([jobId, ids]) => [jobId, [...new Set(ids.map((id) => id.toLowerCase()))].sort()]));
  const current: { job_id: string; groups: string[] }[] = await db('job_groups')
    .where('organization_id', orgId)
    .whereIn('job_id', [...groupsByJob.keys()])
    .groupBy('job_id')
    .select('job_id', db.raw('array_agg(group_id::text ORDER BY group_id::text) AS groups'));
  const before = new Map(current.map((c) => [c.job_id, c.groups.join(',')]));
  const changed = [...wanted].filter(([jobId, ids]) => (before.get(jobId) ?? '') !== ids.join(',')).map(([jobId]) => jobId);
  if (!changed.length) return;
  await db('job_groups').where('organization_id', orgId).whereIn('job_id', changed).delete();
  const pairs = changed.flatMap((job_id) => wanted.get(job_id)!.map((group_id) => ({ job_id, group_id })));
  if (pairs.length)
    await db.raw(
      `INSERT INTO job_groups (organization_id, job_id, group_id)
       SELECT ?, p.job_id, p.group_id FROM json_to_recordset(?::json) AS p(job_id uuid, group_id uuid) ON CONFLICT DO NOTHING`,
      [orgId, JSON.stringify(pairs)],
    );
  await db('jobs').where('organization_id', orgId).whereIn('id', changed).update({ updated_at: db.fn.now() });
}

export async function createJob(db: Knex, orgId: string, input: Schema<'JobCreate'>): Promise<Json<Job>> {
  return db.transaction(async (tx) => {
    await checkRefs(tx, orgId, input);
    await checkCodeFree(tx, jobs, orgId, input.code);
    let defaultLocationId = input.defaultLocationId ?? null;
    if (input.defaultLocation) {
      await checkLocationInput(tx, orgId, input.defaultLocation, 'body.defaultLocation');
      defaultLocationId = await insertLocation(tx, orgId, { ...input.defaultLocation, type: input.defaultLocation.type ?? 'Jobsite' });
    }
    const [row] = await tx('jobs')
      .insert({
        organization_id: orgId,
        code: input.code,
        name: input.name,
        default_location_id: defaultLocationId,
        default_tax_code_id: input.defaultTaxCodeId ?? null,
        start_date: input.startDate ?? null,
        state: input.state ?? 'OPEN',
      })
      .returning('id');
    if (defaultLocationId) await attachToJob(tx, orgId, [{ jobId: row.id, locationId: defaultLocationId }]);
    if (input.groupIds) await replaceJobGroups(tx, orgId, new Map([[row.id, input.groupIds]]));
    return getJobById(tx, orgId, row.id);
  });
}

export async function updateJob(db: Knex, orgId: string, idOrCode: string, changes: Schema<'JobUpdate'>): Promise<Json<Job> | undefined> {
  return db.transaction(async (tx) => {
    const job = await whereIdOrCode(scoped(tx, jobs, orgId), jobs, idOrCode)
      .forUpdate()
      .first('j.id', 'j.default_location_id', 'j.default_tax_code_id');
    if (!job) return undefined;
    await checkRefs(tx, orgId, changes, job);
    if (changes.code !== undefined) await checkCodeFree(tx, jobs, orgId, changes.code, job.id);
    let defaultLocationId: string | null | undefined = changes.defaultLocationId;
    const inline = changes.defaultLocation;
    if (inline) {
      const current = job.default_location_id ? await currentLocation(tx, orgId, job.default_location_id) : undefined;
      await checkLocationInput(tx, orgId, inline, 'body.defaultLocation', current);
      if (current) await updateLocationRow(tx, orgId, job.default_location_id, inline);
      else defaultLocationId = await insertLocation(tx, orgId, { ...inline, type: inline.type ?? 'Jobsite' });
    }
    if (defaultLocationId) await attachToJob(tx, orgId, [{ jobId: job.id, locationId: defaultLocationId }]);
    if (changes.groupIds) await replaceJobGroups(tx, orgId, new Map([[job.id, changes.groupIds]]));
    return updateById<Job>(tx, jobs, orgId, job.id, { ...rowOf(jobs, changes), default_location_id: defaultLocationId });
  });
}
