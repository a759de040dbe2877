import type { Knex } from 'knex';
import type { Db, Queryable } from '../../db/knex';
import { readObjectTexts } from '../../db/object-reads';
import type { ResourceDef } from '../../db/resource';
import { canonicalForm } from '../../db/object-digest';
import { touchedBuckets } from '../../feed/object-states';
import { bumpBucketVersions } from './bucket-cache';
import { showing } from './dependents';
import { reconciledDef, type ReconciledSources } from './sources';
import { requestBackfill } from './requests';

export { requestBackfill };

/**
 * The backfill of object states (feed_objects, migration 20261126000000) for objects that exist
 * without a feed entry: created before that migration, by the admin CLI's demo data (its objects of
 * resources without a `created` event: created-entries.ts), or by a bulk loader (the benchmark's). Whoever writes objects without the feed says so with
 * requestBackfill; the marker rows (feed_object_backfills) are worked off by the worker's
 * `reconciliation_backfill` task every minute, and GET /reconciliation/{resource} completes the
 * backfill of its resource itself before it answers (handlers.ts), so it never answers digests
 * that miss an object.
 *
 * A backfill is a rebuild: it reads the resource's live objects with the same ResourceDef its
 * single read uses (ResourceDeclarations.reconciled), in id order, CHUNK at a time (keyset pages, never one query per
 * object), and in each id range writes the states that differ, and removes states whose object is
 * gone. Each chunk is one transaction that first takes the organization's feed head row lock, the
 * lock the feed's append statement takes before it writes states: no entry is numbered while the
 * chunk reads, so what it reads is the state after every entry up to the head, and the states it
 * writes carry the head as their position. An entry numbered after the chunk rewrites its
 * object's state itself. The head's lock is held for one chunk only, so writers wait at most that.
 * Each chunk bumps the versions of the buckets whose states it changed (bucket-cache.ts).
 *
 * A targeted rebuild (feed_object_refreshes, written by the feed's append when an object that
 * other objects' reads show changes: object-states.ts owedRebuilds) is the same, narrowed to the
 * objects that show the changed ones (dependents.ts): a tax code's change rebuilds its items, not
 * all 190,000.
 */
const CHUNK = 2000;

/** The marker of `resource` (or of every resource, '*'), turned into one per resource; its requested_at, or undefined when none. */
async function pendingSince(sources: ReconciledSources, db: Db, organizationId: string, resource: string): Promise<string | undefined> {
  const all = await db('feed_object_backfills').where({ organization_id: organizationId, resource: '*' }).first('requested_at');
  if (all) {
    await db.transaction(async (trx) => {
      await requestBackfill(trx, organizationId, sources.resources);
      await trx('feed_object_backfills').where({ organization_id: organizationId, resource: '*' }).delete();
    });
  }
  // As text: a Date would drop the microseconds, and the marker would never match again.
  const row = await db('feed_object_backfills').where({ organization_id: organizationId, resource }).first(db.raw('requested_at::text AS at'));
  return row?.at;
}

/** Whether the resource of the organization is owed a backfill or a targeted rebuild, in the caller's snapshot. */
export async function backfillPending(db: Queryable, organizationId: string, resource: string): Promise<boolean> {
  const { rows } = await db.raw(
    `SELECT 1 FROM feed_object_backfills WHERE organization_id = ? AND resource IN (?, '*')
     UNION ALL SELECT 1 FROM feed_object_refreshes WHERE organization_id = ? AND resource = ? LIMIT 1`,
    [organizationId, resource, organizationId, resource],
  );
  return rows.length > 0;
}

/** Takes the organization's feed head row lock (creating the head when there is none) and returns its position. */
export async function lockHead(trx: Knex.Transaction, organizationId: string): Promise<number> {
  const { rows } = await trx.raw(
    `INSERT INTO feed_heads AS h (organization_id, position) VALUES (?, 0)
     ON CONFLICT (organization_id) DO UPDATE SET position = h.position RETURNING position`,
    [organizationId],
  );
  return Number(rows[0].position);
}

/**
 * One chunk: the live objects after `after` (in id order), their states written, stale ones
 * removed; with `only`, just the objects it narrows the read to (a targeted rebuild, which
 * removes nothing). Returns the last id, or undefined at the end.
 */
async function backfillChunk(
  def: ResourceDef,
  trx: Knex.Transaction,
  organizationId: string,
  resource: string,
  after: string | undefined,
  only?: (q: Knex.QueryBuilder) => void,
): Promise<string | undefined> {
  const head = await lockHead(trx, organizationId);
  const rows = await readObjectTexts(trx, def, organizationId, (page, id) => {
    page.limit(CHUNK);
    if (after) page.where(id, '>', after);
    only?.(page);
  });
  const objects = rows.map((r) => ({ id: r.id, ...canonicalForm(JSON.parse(r.json)) }));
  const last = objects.length === CHUNK ? objects[objects.length - 1].id : undefined;
  // Only states that differ are written: a backfill of a resource whose states are current writes nothing.
  const written = await trx.raw(
    `INSERT INTO feed_objects AS f (organization_id, resource, id, position, digest, data)
     SELECT ?, ?, s.id::uuid, ?, s.digest, s.data
       FROM ROWS FROM (json_array_elements_text(?::json), json_array_elements_text(?::json), json_array_elements(?::json)) AS s(id, digest, data)
     ON CONFLICT (organization_id, resource, id) DO UPDATE SET position = EXCLUDED.position, digest = EXCLUDED.digest, data = EXCLUDED.data
      WHERE f.digest <> EXCLUDED.digest
     RETURNING id::text`,
    [
      organizationId,
      resource,
      head,
      JSON.stringify(objects.map((o) => o.id)),
      JSON.stringify(objects.map((o) => o.digest)),
      `[${objects.map((o) => o.text).join(',')}]`,
    ],
  );
  // States in this chunk's id range whose object is not live (deleted without an entry).
  const removed = only
    ? { rows: [] }
    : await trx.raw(
        `DELETE FROM feed_objects WHERE organization_id = ? AND resource = ? AND (?::uuid IS NULL OR id > ?::uuid) AND (?::uuid IS NULL OR id <= ?::uuid)
        AND id <> ALL(?::uuid[])
     RETURNING id::text`,
        [organizationId, resource, after ?? null, after ?? null, last ?? null, last ?? null, objects.map((o) => o.id)],
      );
  // The cached digests of the buckets it changed are stale from now on (bucket-cache.ts).
  const changed = [...written.rows, ...removed.rows].map((r: { id: string }) => ({ resource, id: r.id }));
  await bumpBucketVersions(trx, organizationId, touchedBuckets(changed));
  return last;
}

/** True once the caller wants the work to end early (a worker stopping); what is left stays owed. */
export type Stopping = () => boolean;
const never: Stopping = () => false;

/**
 * Runs the chunks of one rebuild; the last chunk's transaction also runs `finish` (clearing what
 * asked for the rebuild). Returns false when `stopping` ended it first: the request stays, and the
 * next run starts it again (chunks whose states are current write nothing).
 */
async function rebuild(
  def: ResourceDef,
  db: Db,
  organizationId: string,
  resource: string,
  finish: (trx: Knex.Transaction) => Promise<unknown>,
  only?: (q: Knex.QueryBuilder) => void,
  stopping: Stopping = never,
): Promise<boolean> {
  let after: string | undefined;
  for (;;) {
    if (stopping()) return false;
    const done = await db.transaction(async (trx) => {
      after = await backfillChunk(def, trx, organizationId, resource, after, only);
      if (after !== undefined) return false;
      await finish(trx);
      return true;
    });
    if (done) return true;
  }
}

/**
 * The targeted rebuilds a resource of an organization is owed (feed_object_refreshes): for each
 * changed resource, only the objects that show the changed objects (dependents.ts); each cleared
 * unless it was asked for again meanwhile. A pair without a condition is rebuilt whole.
 */
async function refreshResource(def: ResourceDef, db: Db, organizationId: string, resource: string, stopping: Stopping): Promise<boolean> {
  const owed: { via: string; ids: string[]; at: string }[] = await db('feed_object_refreshes')
    .where({ organization_id: organizationId, resource })
    .select('via', 'ids', db.raw('requested_at::text AS at'));
  for (const { via, ids, at } of owed) {
    const clear = (trx: Knex.Transaction) =>
      trx('feed_object_refreshes').where({ organization_id: organizationId, resource, via }).whereRaw('requested_at = ?::timestamptz', [at]).delete();
    if (!(await rebuild(def, db, organizationId, resource, clear, showing(resource, via, ids) ?? (() => undefined), stopping))) break;
  }
  return owed.length > 0;
}

/**
 * Rebuilds the states of one resource of an organization when it is owed a backfill (all of its
 * objects) or targeted rebuilds, and clears what asked for them unless it was asked for again
 * meanwhile. Returns whether anything ran. With `stopping`, ends between chunks once it holds,
 * leaving the rest owed (the reconciliation read passes none: it must complete what it reads).
 */
export async function backfillResource(
  sources: ReconciledSources,
  db: Db,
  organizationId: string,
  resource: string,
  stopping: Stopping = never,
): Promise<boolean> {
  const def = reconciledDef(sources, resource);
  if (!def) return false;
  const since = await pendingSince(sources, db, organizationId, resource);
  if (since) {
    const finished = await rebuild(
      def,
      db,
      organizationId,
      resource,
      (trx) => trx('feed_object_backfills').where({ organization_id: organizationId, resource }).whereRaw('requested_at = ?::timestamptz', [since]).delete(),
      undefined,
      stopping,
    );
    if (!finished) return true;
  }
  const refreshed = await refreshResource(def, db, organizationId, resource, stopping);
  return Boolean(since) || refreshed;
}

/**
 * Works off every marker and targeted rebuild (the worker's `reconciliation_backfill` task). A
 * stopping worker ends it between chunks: a backlog of many organizations' rebuilds must not hold
 * an instance's shutdown past its deadline; the next tick, on any instance, carries on.
 */
export async function runPendingBackfills(sources: ReconciledSources, db: Db, stopping: Stopping = never): Promise<void> {
  const pending: { organization_id: string; resource: string }[] = (
    await db.raw(
      `SELECT organization_id, resource FROM feed_object_backfills UNION SELECT organization_id, resource FROM feed_object_refreshes
        ORDER BY organization_id, resource`,
    )
  ).rows;
  const organizations = new Set(pending.map((p) => p.organization_id));
  for (const organizationId of organizations) {
    const resources = pending.filter((p) => p.organization_id === organizationId).map((p) => p.resource);
    for (const resource of resources.includes('*') ? sources.resources : resources) {
      if (stopping()) return;
      await backfillResource(sources, db, organizationId, resource, stopping);
    }
  }
}
