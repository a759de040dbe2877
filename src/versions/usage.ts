import type { Queryable } from '../db/knex';
import { versionNamed } from './registry';
import { deprecationsOf, present } from './deprecations';

/**
 * What a request used that is deprecated at its version: `version` (the version itself),
 * `operation`, `query.<name>`, `header.<name>`, `body.<path>` (`items[].note`), and
 * `response.<Schema>.<field>` (a field its success reply carries: counted for every request of
 * the operation, whatever it answers, as the caller's code that calls it reads the field).
 * Empty for most requests, at the cost of a look-up (deprecations.ts).
 */
export function deprecatedUses(
  version: string,
  operationId: string | undefined,
  query: Record<string, unknown>,
  headers: Record<string, unknown>,
  body: unknown,
): string[] {
  const uses: string[] = [];
  if (versionNamed(version)?.deprecatedAt) uses.push('version');
  if (!operationId) return uses;
  const d = deprecationsOf(version, operationId);
  if (d.operation) uses.push('operation');
  for (const p of d.parameters) if ((p.in === 'query' ? query[p.name] : headers[p.name.toLowerCase()]) !== undefined) uses.push(`${p.in}.${p.name}`);
  for (const path of d.bodyFields) if (present(body, path)) uses.push(`body.${path.join('.').replace(/\.\[\]/g, '[]')}`);
  uses.push(...d.responseFields);
  return uses;
}

/** How many days of deprecated usage a caller lists (GET /deprecated-usage) and the service keeps. */
export const USAGE_DAYS = 30;

export interface DeprecatedRequest {
  organizationId: string;
  credentialId: string;
  version: string;
  operationId: string;
  uses: string[];
  requestId: string;
}

/** Counts a request's deprecated uses, one statement (an upsert per use, for today). */
export async function recordDeprecatedUsage(db: Queryable, r: DeprecatedRequest): Promise<void> {
  await db.raw(
    `INSERT INTO deprecated_usage AS u (organization_id, day, credential_id, version, operation_id, what, count, last_request_id, last_request_at)
     SELECT ?, current_date, ?, ?, ?, w, 1, ?, now() FROM unnest(?::text[]) AS w
     ON CONFLICT (organization_id, day, credential_id, version, operation_id, what)
     DO UPDATE SET count = u.count + 1, last_request_id = excluded.last_request_id, last_request_at = excluded.last_request_at`,
    [r.organizationId, r.credentialId, r.version, r.operationId, r.requestId, r.uses],
  );
}

/** The organization's deprecated usage of the last 30 days, most recent first (GET /deprecated-usage, the admin CLI). */
export async function deprecatedUsage(db: Queryable, organizationId: string) {
  const { rows } = await db.raw(
    `SELECT DISTINCT ON (credential_id, version, operation_id, what)
            credential_id, version, operation_id, what,
            sum(count) OVER w AS count, last_request_id, last_request_at
       FROM deprecated_usage
      WHERE organization_id = ? AND day > current_date - ?::int
     WINDOW w AS (PARTITION BY credential_id, version, operation_id, what)
      ORDER BY credential_id, version, operation_id, what, last_request_at DESC`,
    [organizationId, USAGE_DAYS],
  );
  return (rows as any[])
    .map((r) => ({
      credentialId: r.credential_id as string,
      version: r.version as string,
      operationId: r.operation_id as string,
      deprecated: r.what as string,
      count: Number(r.count),
      lastRequestId: r.last_request_id as string,
      lastRequestAt: new Date(r.last_request_at).toISOString(),
    }))
    .sort((a, b) => (a.lastRequestAt < b.lastRequestAt ? 1 : a.lastRequestAt > b.lastRequestAt ? -1 : 0));
}

/**
 * Deletes the days no caller lists any more (older than USAGE_DAYS): the background worker's daily
 * task (src/background/worker.ts). One statement: a row per organization, day, credential, version,
 * operation and deprecated thing is few rows a day. Returns how many were deleted.
 */
export async function pruneDeprecatedUsage(db: Queryable): Promise<number> {
  const { rowCount } = await db.raw('DELETE FROM deprecated_usage WHERE day <= current_date - ?::int', [USAGE_DAYS]);
  return rowCount ?? 0;
}
