import type { Queryable } from '../../db/knex';
import { isUuid } from '../../db/columns';

/**
 * Jobs named by the jobId/jobCode of batch inputs, looked up in the caller's organization
 * (another organization's job is missing). `:jobIdOrCode` paths use jobs/queries.ts `jobId`.
 */
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
