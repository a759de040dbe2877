import type { Knex } from 'knex';
import type { Db } from '../../db/knex';
import { backfillPending, backfillResource } from './backfill';

/** SHA-256 of the empty string: the digest of an empty set (and of an empty bucket). */
export const EMPTY_DIGEST = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const HEX = '0123456789abcdef';

export interface Digests {
  /** The organization's feed head the digests are taken at. */
  position: number;
  count: number;
  digest: string;
  buckets: { prefix: string; count: number; digest: string }[];
  objects?: { id: string; digest: string }[];
}

/** The lowest and highest uuid whose hex digits start with `prefix` (uuid order is the byte order of the hex text). */
function idRange(prefix: string): [string, string] {
  const uuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return [uuid(prefix.padEnd(32, '0')), uuid(prefix.padEnd(32, 'f'))];
}

/**
 * The digests in one snapshot: the count and set digest of the objects whose id is in the
 * prefix's range, and of each of its sixteen buckets, computed by PostgreSQL from the stored
 * per-object digests (feed_objects) in one pass over the primary key's index, which carries them:
 * no object is read or serialized. Each bucket's lines are aggregated once; the range's own digest
 * hashes the buckets' lines in bucket order, which is id order.
 */
async function digestsIn(trx: Knex.Transaction, organizationId: string, resource: string, prefix: string): Promise<Omit<Digests, 'position' | 'objects'>> {
  const [low, high] = idRange(prefix);
  // Where the next hex digit is in the id's text (after the dash that follows the 8th digit).
  const at = prefix.length + 1 + (prefix.length >= 8 ? 1 : 0);
  const { rows } = await trx.raw(
    `WITH b AS (
       SELECT substr(id::text, ?, 1) AS d, count(*) AS n, string_agg(id::text || ':' || digest || E'\\n', '' ORDER BY id) AS lines
         FROM feed_objects
        WHERE organization_id = ? AND resource = ? AND id BETWEEN ?::uuid AND ?::uuid
        GROUP BY 1
     )
     SELECT d, n, encode(sha256(convert_to(lines, 'UTF8')), 'hex') AS digest FROM b
     UNION ALL
     SELECT NULL, coalesce(sum(n), 0), encode(sha256(convert_to(coalesce(string_agg(lines, '' ORDER BY d), ''), 'UTF8')), 'hex') FROM b`,
    [at, organizationId, resource, low, high],
  );
  const found = new Map<string | null, { n: number; digest: string }>(rows.map((r: { d: string | null; n: number; digest: string }) => [r.d, r]));
  const all = found.get(null)!;
  return {
    count: Number(all.n),
    digest: all.digest,
    buckets: [...HEX].map((d) => ({ prefix: prefix + d, count: Number(found.get(d)?.n ?? 0), digest: found.get(d)?.digest ?? EMPTY_DIGEST })),
  };
}

async function objectsIn(trx: Knex.Transaction, organizationId: string, resource: string, prefix: string): Promise<{ id: string; digest: string }[]> {
  const [low, high] = idRange(prefix);
  const { rows } = await trx.raw(
    `SELECT id, digest FROM feed_objects WHERE organization_id = ? AND resource = ? AND id BETWEEN ?::uuid AND ?::uuid ORDER BY id`,
    [organizationId, resource, low, high],
  );
  return rows;
}

/** At most this many objects are listed with their digests. */
export const MAX_OBJECTS = 1000;
/** How many times a backfill asked for again while this request completed it is completed again before giving up. */
const BACKFILL_ROUNDS = 3;

/**
 * The digests of a resource's objects (those whose id starts with `prefix`) at the organization's
 * feed head, the head and the states read in one REPEATABLE READ snapshot: the states are
 * written in the same statement as the entries, so they are exactly the state after every entry
 * up to that head. When the resource is owed a backfill in that snapshot, the backfill is
 * completed first (in its own transactions) and the snapshot taken again; undefined when it was
 * asked for again every time.
 */
export async function reconciliationDigests(db: Db, organizationId: string, resource: string, prefix: string): Promise<Digests | undefined> {
  for (let round = 0; round <= BACKFILL_ROUNDS; round++) {
    const digests = await db.transaction(
      async (trx): Promise<Digests | undefined> => {
        if (await backfillPending(trx, organizationId, resource)) return undefined;
        const head = await trx.raw('SELECT position FROM feed_heads WHERE organization_id = ?', [organizationId]);
        const found = await digestsIn(trx, organizationId, resource, prefix);
        const listed = found.count <= MAX_OBJECTS || prefix.length >= 8;
        return {
          position: Number(head.rows[0]?.position ?? 0),
          ...found,
          ...(listed ? { objects: await objectsIn(trx, organizationId, resource, prefix) } : {}),
        };
      },
      { isolationLevel: 'repeatable read', readOnly: true },
    );
    if (digests) return digests;
    await backfillResource(db, organizationId, resource);
  }
  return undefined;
}
