import type { Queryable } from '../../db/knex';
import { isUuid } from '../../db/columns';

/**
 * Jobs as the parent of phases and cost categories: `:jobIdOrCode` and the jobId/jobCode of batch
 * inputs, always looked up in the caller's organization (another organization's job is missing).
 */
export async function resolveJobId(db: Queryable, orgId: string, idOrCode: string): Promise<string | undefined> {
  const q = db('jobs').where({ organization_id: orgId });
  if (isUuid(idOrCode)) q.where((w) => w.where('id', idOrCode).orWhere('code', idOrCode)).orderByRaw('(id = ?) DESC', [idOrCode]);
  else q.where('code', idOrCode);
  const row = await q.first('id');
  return row?.id;
}

export interface JobKey {
  id: string;
  code: string;
}

/** Every job of the organization with one of the IDs or codes, in one query. */
export async function findJobs(db: Queryable, orgId: string, ids: string[], codes: string[]): Promise<JobKey[]> {
  const validIds = [...new Set(ids.filter(isUuid))];
  const uniqueCodes = [...new Set(codes)];
  if (!validIds.length && !uniqueCodes.length) return [];
  return db('jobs')
    .where({ organization_id: orgId })
    .where((w) => w.whereRaw('id = ANY(?::uuid[])', [validIds]).orWhereRaw('code = ANY(?::text[])', [uniqueCodes]))
    .select('id', 'code');
}
