import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';

/**
 * The whole resource's digests (GET /reconciliation/{resource} without a prefix) from cached
 * bucket lines (migration 20261126043000), so a request rebuilds only the buckets that changed.
 *
 * SHA-256 does not compose: the resource's digest needs every line, in id order, hashed again.
 * Building the lines is what costs (190,000 `<id>:<digest>\n` lines cost PostgreSQL several
 * hundred ms: the uuid-to-text casts and concatenations, not the index scan); hashing 19 MB of
 * them costs tens. So each top-level bucket's lines are kept once built (feed_object_bucket_lines,
 * with the bucket's version they were built at), the digest of the whole resource too, and
 * PostgreSQL hashes the stored lines where they are: nothing but 17 digests crosses the wire.
 *
 * Exactness: the versions (feed_object_bucket_versions) are bumped in the same transaction as
 * every change of an object state, by the feed's append (object-states.ts) and the backfill
 * (backfill.ts); a cached row is used only when its bucket's version in the request's snapshot
 * is the one it was built at, so it describes that snapshot's states, i.e. the state at the
 * snapshot's feed head. Stale buckets are rebuilt from feed_objects in the same snapshot and
 * stored for the next request. Two requests storing the same bucket at once: the later one's
 * REPEATABLE READ transaction fails with a serialization error and is run again (retryOnConflict,
 * digests.ts), and finds the bucket current.
 */

/** The sixteen hex digits, in order: the buckets one level below a prefix. */
export const HEX = [...'0123456789abcdef'];

/** The lowest and highest uuid whose hex digits start with `prefix` (uuid order is the byte order of the hex text). */
export function idRange(prefix: string): [string, string] {
  const uuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return [uuid(prefix.padEnd(32, '0')), uuid(prefix.padEnd(32, 'f'))];
}

/** Bumps the versions of some top-level buckets (a write of their object states outside the feed's append statement, which bumps them itself). */
export async function bumpBucketVersions(db: Queryable, organizationId: string, buckets: { resource: string; prefix: string }[]): Promise<void> {
  if (!buckets.length) return;
  await db.raw(
    `INSERT INTO feed_object_bucket_versions AS v (organization_id, resource, prefix, version)
     SELECT ?, k.resource, k.prefix, 1 FROM unnest(?::text[], ?::text[]) AS k(resource, prefix)
     ON CONFLICT (organization_id, resource, prefix) DO UPDATE SET version = v.version + 1`,
    [organizationId, buckets.map((b) => b.resource), buckets.map((b) => b.prefix)],
  );
}

export interface ResourceDigests {
  count: number;
  digest: string;
  buckets: { prefix: string; count: number; digest: string }[];
}

interface BucketRow {
  prefix: string;
  version: string;
  cached: string | null;
  count: number | null;
  digest: string | null;
}

/** The digests of all of a resource's objects, in the caller's REPEATABLE READ (read-write) transaction. */
export async function resourceDigests(trx: Knex.Transaction, organizationId: string, resource: string): Promise<ResourceDigests> {
  const { rows } = await trx.raw(
    `SELECT d.prefix, coalesce(v.version, 0)::text AS version, l.version::text AS cached, l.count, l.digest
       FROM unnest(?::text[]) AS d(prefix)
       LEFT JOIN feed_object_bucket_versions v ON v.organization_id = ? AND v.resource = ? AND v.prefix = d.prefix
       LEFT JOIN feed_object_bucket_lines l ON l.organization_id = ? AND l.resource = ? AND l.prefix = d.prefix`,
    [['', ...HEX], organizationId, resource, organizationId, resource],
  );
  const byPrefix = new Map<string, BucketRow>(rows.map((r: BucketRow) => [r.prefix, r]));
  const buckets = HEX.map((prefix) => byPrefix.get(prefix)!);
  // Each bucket's version only grows, so the sum is the one the whole resource's row was built at exactly when every bucket's is.
  const total = buckets.reduce((sum, b) => sum + BigInt(b.version), 0n).toString();
  const whole = byPrefix.get('')!;
  const stale = buckets.filter((b) => b.cached !== b.version);
  if (!stale.length && whole.cached === total) {
    return {
      count: Number(whole.count),
      digest: whole.digest!,
      buckets: buckets.map((b) => ({ prefix: b.prefix, count: Number(b.count), digest: b.digest! })),
    };
  }
  if (stale.length) {
    const ranges = stale.map((b) => idRange(b.prefix));
    const built = await trx.raw(
      `INSERT INTO feed_object_bucket_lines AS l (organization_id, resource, prefix, version, count, digest, lines)
       SELECT ?, ?, b.prefix, b.version, x.n, encode(sha256(convert_to(x.lines, 'UTF8')), 'hex'), x.lines
         FROM unnest(?::text[], ?::bigint[], ?::uuid[], ?::uuid[]) AS b(prefix, version, low, high)
         CROSS JOIN LATERAL (
           SELECT count(*)::int AS n, coalesce(string_agg(f.id::text || ':' || f.digest || E'\\n', '' ORDER BY f.id), '') AS lines
             FROM feed_objects f
            WHERE f.organization_id = ? AND f.resource = ? AND f.id BETWEEN b.low AND b.high
         ) AS x
       ON CONFLICT (organization_id, resource, prefix) DO UPDATE
         SET version = EXCLUDED.version, count = EXCLUDED.count, digest = EXCLUDED.digest, lines = EXCLUDED.lines
       RETURNING prefix, count, digest`,
      [
        organizationId,
        resource,
        stale.map((b) => b.prefix),
        stale.map((b) => b.version),
        ranges.map((r) => r[0]),
        ranges.map((r) => r[1]),
        organizationId,
        resource,
      ],
    );
    for (const r of built.rows as { prefix: string; count: number; digest: string }[])
      Object.assign(byPrefix.get(r.prefix)!, { count: r.count, digest: r.digest });
  }
  // Every bucket's row is now current in this snapshot: the resource's lines are theirs, in bucket (id) order.
  const top = await trx.raw(
    `INSERT INTO feed_object_bucket_lines AS l (organization_id, resource, prefix, version, count, digest, lines)
     SELECT ?, ?, '', ?, coalesce(sum(b.count), 0),
            encode(sha256(convert_to(coalesce(string_agg(b.lines, '' ORDER BY b.prefix COLLATE "C"), ''), 'UTF8')), 'hex'), NULL
       FROM feed_object_bucket_lines b
      WHERE b.organization_id = ? AND b.resource = ? AND b.prefix <> ''
     ON CONFLICT (organization_id, resource, prefix) DO UPDATE SET version = EXCLUDED.version, count = EXCLUDED.count, digest = EXCLUDED.digest
     RETURNING count, digest`,
    [organizationId, resource, total, organizationId, resource],
  );
  return {
    count: Number(top.rows[0].count),
    digest: top.rows[0].digest,
    buckets: buckets.map((b) => ({ prefix: b.prefix, count: Number(b.count), digest: b.digest! })),
  };
}
