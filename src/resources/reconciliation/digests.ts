import type { Knex } from 'knex';
import { createHash } from 'node:crypto';
import type { Db } from '../../db/knex';
import { retryOnConflict } from '../../db/retry';
import { backfillPending, backfillResource } from './backfill';
import { capturesPending, drainCaptures } from './captures';
import { HEX, idRange, resourceDigests } from './bucket-cache';
import type { ReconciledSources } from './sources';
import { objectDigest } from '../../db/object-digest';

/** SHA-256 of the empty string: the digest of an empty set (and of an empty bucket). */
export const EMPTY_DIGEST = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface Digests {
  /** The organization's feed head the digests are taken at. */
  position: number;
  count: number;
  digest: string;
  buckets: { prefix: string; count: number; digest: string }[];
  objects?: { id: string; digest: string }[];
}

/**
 * The digests in one snapshot below a prefix (the whole resource's come from cached buckets,
 * bucket-cache.ts): the count and set digest of the objects whose id is in the prefix's range, and of each of its sixteen buckets, from the stored per-object digests
 * (feed_objects): no object is read or serialized. PostgreSQL builds each bucket's lines
 * (`<id>:<digest>\n`) in one range scan of the primary key's index, which carries the digests and
 * is in id order (no sort); node hashes each bucket's lines, and all of them in bucket order (id
 * order) for the range's own digest, so the lines are never concatenated or hashed twice.
 */
async function digestsIn(trx: Knex.Transaction, organizationId: string, resource: string, prefix: string): Promise<Omit<Digests, 'position' | 'objects'>> {
  const ranges = HEX.map((d) => idRange(prefix + d));
  const { rows } = await trx.raw(
    `SELECT b.ord, x.n, x.lines
       FROM unnest(?::uuid[], ?::uuid[]) WITH ORDINALITY AS b(low, high, ord)
       CROSS JOIN LATERAL (
         SELECT count(*) AS n, string_agg(f.id::text || ':' || f.digest || E'\\n', '' ORDER BY f.id) AS lines
           FROM feed_objects f
          WHERE f.organization_id = ? AND f.resource = ? AND f.id BETWEEN b.low AND b.high
       ) AS x`,
    [ranges.map((r) => r[0]), ranges.map((r) => r[1]), organizationId, resource],
  );
  const byOrd = new Map<number, { n: number; lines: string | null }>(rows.map((r: { ord: number; n: number; lines: string | null }) => [Number(r.ord), r]));
  const all = createHash('sha256');
  let count = 0;
  const buckets = HEX.map((d, i) => {
    const found = byOrd.get(i + 1);
    const lines = found?.lines ?? '';
    all.update(lines, 'utf8');
    count += Number(found?.n ?? 0);
    return { prefix: prefix + d, count: Number(found?.n ?? 0), digest: lines ? createHash('sha256').update(lines, 'utf8').digest('hex') : EMPTY_DIGEST };
  });
  return { count, digest: all.digest('hex'), buckets };
}

async function objectsIn(trx: Knex.Transaction, organizationId: string, resource: string, prefix: string): Promise<{ id: string; digest: string }[]> {
  const [low, high] = idRange(prefix);
  const { rows } = await trx.raw(
    `SELECT id, digest FROM feed_objects WHERE organization_id = ? AND resource = ? AND id BETWEEN ?::uuid AND ?::uuid ORDER BY id`,
    [organizationId, resource, low, high],
  );
  return rows;
}

/**
 * The same digests of the objects as another shape of their read shows them (`restate`: an older
 * API version's): each state below the prefix is read, moved and digested again, in the snapshot.
 * Costs a read of every state in the range (the stored digests are the newest shape's).
 */
async function restatedDigestsIn(
  trx: Knex.Transaction,
  organizationId: string,
  resource: string,
  prefix: string,
  restate: (data: Record<string, unknown>) => unknown,
): Promise<Omit<Digests, 'position'>> {
  const [low, high] = idRange(prefix);
  const { rows } = await trx.raw(
    `SELECT id, data::text AS data FROM feed_objects WHERE organization_id = ? AND resource = ? AND id BETWEEN ?::uuid AND ?::uuid ORDER BY id`,
    [organizationId, resource, low, high],
  );
  const objects = (rows as { id: string; data: string }[]).map((r) => ({ id: r.id, digest: objectDigest(restate(JSON.parse(r.data))) }));
  const all = createHash('sha256');
  const buckets = HEX.map((d) => {
    const inBucket = objects.filter((o) => o.id.replace(/-/g, '').startsWith(prefix + d));
    const lines = inBucket.map((o) => `${o.id}:${o.digest}\n`).join('');
    all.update(lines, 'utf8');
    return { prefix: prefix + d, count: inBucket.length, digest: lines ? createHash('sha256').update(lines, 'utf8').digest('hex') : EMPTY_DIGEST };
  });
  const listed = objects.length <= MAX_OBJECTS || prefix.length >= 8;
  return { count: objects.length, digest: all.digest('hex'), buckets, ...(listed ? { objects } : {}) };
}

/** At most this many objects are listed with their digests. */
export const MAX_OBJECTS = 1000;
/** How many times a backfill asked for again while this request completed it is completed again before giving up. */
const BACKFILL_ROUNDS = 3;

/**
 * The digests of a resource's objects (those whose id starts with `prefix`) at the organization's
 * feed head, the head and the states read in one REPEATABLE READ snapshot: the states (and their
 * buckets' versions) are written in the same statement as the entries, so they are exactly the
 * state after every entry up to that head. When the organization has changes captured in the
 * database not yet in the feed (captures.ts), or the resource is owed a backfill in that snapshot,
 * they are completed first (in their own transactions) and the snapshot taken again; undefined
 * when more arrived every time (the handler answers 503 with Retry-After).
 */
export async function reconciliationDigests(
  sources: ReconciledSources,
  db: Db,
  organizationId: string,
  resource: string,
  prefix: string,
  restate?: (data: Record<string, unknown>) => unknown,
): Promise<Digests | undefined> {
  for (let round = 0; round <= BACKFILL_ROUNDS; round++) {
    const digests = await retryOnConflict(() =>
      db.transaction(
        async (trx): Promise<Digests | undefined> => {
          // Changes made in the database count too: their entries first (captures.ts), then any owed rebuild.
          if ((await capturesPending(trx, organizationId)) || (await backfillPending(trx, organizationId, resource))) return undefined;
          const head = await trx.raw('SELECT position FROM feed_heads WHERE organization_id = ?', [organizationId]);
          if (restate) return { position: Number(head.rows[0]?.position ?? 0), ...(await restatedDigestsIn(trx, organizationId, resource, prefix, restate)) };
          const found = prefix ? await digestsIn(trx, organizationId, resource, prefix) : await resourceDigests(trx, organizationId, resource);
          const listed = found.count <= MAX_OBJECTS || prefix.length >= 8;
          return {
            position: Number(head.rows[0]?.position ?? 0),
            ...found,
            ...(listed ? { objects: await objectsIn(trx, organizationId, resource, prefix) } : {}),
          };
        },
        // Not read-only: the whole resource's request stores the buckets it rebuilt (bucket-cache.ts).
        { isolationLevel: 'repeatable read' },
      ),
    );
    if (digests) return digests;
    await drainCaptures(sources, db, organizationId);
    await backfillResource(sources, db, organizationId, resource);
  }
  return undefined;
}
