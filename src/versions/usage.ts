import type { Queryable } from '../db/knex';
import { contractOf, versionNamed } from './registry';

/** What of a version's contract is deprecated for one operation: the operation, its parameters, its body's top-level fields. */
interface Deprecations {
  operation: boolean;
  parameters: string[];
  fields: string[];
}

const known = new Map<string, Deprecations>();

function deprecationsOf(version: string, operationId: string): Deprecations {
  const key = `${version} ${operationId}`;
  let found = known.get(key);
  if (found) return found;
  const doc = contractOf(version);
  const resolve = (node: any) =>
    typeof node?.$ref === 'string'
      ? node.$ref
          .split('/')
          .slice(1)
          .reduce((o: any, k: string) => o?.[k], doc)
      : node;
  let op: any;
  for (const item of Object.values(doc.paths)) for (const candidate of Object.values<any>(item)) if (candidate?.operationId === operationId) op = candidate;
  const body = resolve(op?.requestBody?.content?.['application/json']?.schema);
  found = {
    operation: op?.deprecated === true,
    parameters: (op?.parameters ?? [])
      .map(resolve)
      .filter((p: any) => p?.deprecated && p.in === 'query')
      .map((p: any) => p.name as string),
    fields: Object.entries<any>(body?.properties ?? {})
      .filter(([, s]) => resolve(s)?.deprecated)
      .map(([name]) => name),
  };
  known.set(key, found);
  return found;
}

/**
 * What a request used that is deprecated at its version: `version` (the version itself),
 * `operation`, `query.<name>`, `body.<name>`. Empty for most requests, at no cost beyond a lookup.
 */
export function deprecatedUses(version: string, operationId: string | undefined, query: Record<string, unknown>, body: unknown): string[] {
  const uses: string[] = [];
  if (versionNamed(version)?.deprecatedAt) uses.push('version');
  if (!operationId) return uses;
  const d = deprecationsOf(version, operationId);
  if (d.operation) uses.push('operation');
  for (const p of d.parameters) if (p in query) uses.push(`query.${p}`);
  if (body && typeof body === 'object') for (const f of d.fields) if (f in body) uses.push(`body.${f}`);
  return uses;
}

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
      WHERE organization_id = ? AND day > current_date - 30
     WINDOW w AS (PARTITION BY credential_id, version, operation_id, what)
      ORDER BY credential_id, version, operation_id, what, last_request_at DESC`,
    [organizationId],
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
