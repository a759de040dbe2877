import type { Knex } from 'knex';
import type { Db, Queryable } from '../../db/knex';
import { readObjectTexts } from '../../db/object-reads';
import { canonicalForm } from '../../db/object-digest';
import { appendChanges, type ChangeEntry } from '../../feed/append';
import { CHANGE_EVENTS, type ChangeType, type FeedResource } from '../../feed/change-types';
import { readObjectStates } from '../../feed/object-states';
import { DATABASE_ORIGIN } from '../../feed/origin';
import { changedFieldsOf } from '../../feed/unchanged';
import { lockHead, type Stopping } from './backfill';
import { requestBackfill } from './requests';
import { reconciledDef, type ReconciledSources } from './sources';

/**
 * The feed entries of changes made in the database rather than through the API (issue #42): an
 * operator's `UPDATE`, a `COPY`, a migration. The triggers of migration 20261206000000 queue the
 * changed ids (`feed_captures`) in the writer's transaction and wake the worker's `feed_capture`
 * task, which runs drainCaptures; GET /reconciliation/{resource} drains its organization first too
 * (digests.ts), so a digest never misses a committed change.
 *
 * Each chunk is one transaction: it takes the organization's feed head lock first (the lock every
 * append takes: lockHead), so the objects it then reads are exactly the state after every entry
 * up to the head plus the captured changes, takes up to CHUNK queued rows (deleted in the same
 * transaction as the entries are appended: exactly once, whatever instance runs it or stops
 * meanwhile), reads those objects as their reads build them (the same ResourceDefs as the
 * backfill, ResourceDeclarations.reconciled) and compares each with the state the feed last knew (feed_objects):
 * - live, no state: `<resource>.created`;
 * - live, a different state: `<resource>.updated` with changedFields and previous (the rule of
 *   src/feed/unchanged.ts: an update that leaves the read as it was is nothing);
 * - gone (deleted, or soft-deleted), with a state: `<resource>.deleted`, its tombstone `id` and
 *   `deletedAt` (this transaction's time);
 * - gone without a state, or unchanged: nothing (a change the API already entered, or undone).
 * The entries carry origin `database` and are appended as the transaction's last statement, with
 * the states, bucket versions and owed rebuilds of objects that show them (a tax code's items),
 * like any entry; the webhook doorbell rings on them as on any entry.
 *
 * A resource the feed has no such event for (e.g. `invoice.created`) gets no entry: its states
 * are rebuilt by a backfill instead (requestBackfill), so its digests still follow.
 */
const CHUNK = 1000;

/** Whether the organization has captured changes not yet in the feed, in the caller's snapshot. */
export async function capturesPending(db: Queryable, organizationId: string): Promise<boolean> {
  const { rows } = await db.raw('SELECT 1 FROM feed_captures WHERE organization_id = ? LIMIT 1', [organizationId]);
  return rows.length > 0;
}

const hasEvent = (resource: string, event: string): boolean =>
  (CHANGE_EVENTS[resource as FeedResource] as readonly string[] | undefined)?.includes(event) ?? false;

/** The transaction's time as the API writes timestamps (a deletion's `deletedAt`). */
const transactionTime = async (db: Queryable): Promise<string> => (await db.raw('SELECT api_ts(now()::timestamptz(3)) AS now')).rows[0].now;

/** The entries of one resource's captured ids (in the order first captured), and whether it is owed a backfill instead. */
async function entriesOf(
  sources: ReconciledSources,
  trx: Knex.Transaction,
  organizationId: string,
  resource: string,
  ids: string[],
  now: () => Promise<string>,
) {
  const def = reconciledDef(sources, resource);
  if (!def) return { entries: [], backfill: false };
  const live = new Map(
    (await readObjectTexts(trx, def, organizationId, (q, id) => q.whereRaw(`${id} = ANY(?::uuid[])`, [ids]))).map((r) => [
      r.id,
      JSON.parse(r.json) as Record<string, unknown>,
    ]),
  );
  const states = await readObjectStates(trx, organizationId, resource, ids);
  const entries: ChangeEntry[] = [];
  let backfill = false;
  const add = (event: string, entry: Omit<ChangeEntry, 'type' | 'resource'>) => {
    if (hasEvent(resource, event)) entries.push({ type: `${resource}.${event}` as ChangeType, resource: resource as FeedResource, ...entry });
    else backfill = true;
  };
  for (const id of ids) {
    const data = live.get(id);
    const state = states.get(id);
    if (data && !state) add('created', { id, data });
    else if (data && state) {
      if (canonicalForm(data).digest === state.digest) continue;
      const before = state.data as Record<string, unknown>;
      const changedFields = changedFieldsOf(data, before);
      add('updated', { id, data, changedFields, previous: Object.fromEntries(changedFields.map((k) => [k, before[k]])) });
    } else if (state) add('deleted', { id, data: { id, deletedAt: await now() } });
  }
  return { entries, backfill };
}

/**
 * Appends the entries of up to CHUNK captured rows of one organization in one transaction.
 * Returns false when its queue was empty.
 */
async function drainChunk(sources: ReconciledSources, db: Db, organizationId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    await lockHead(trx, organizationId);
    const { rows } = await trx.raw(
      `DELETE FROM feed_captures WHERE seq IN (
         SELECT seq FROM feed_captures WHERE organization_id = ? ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING seq, resource, id::text`,
      [organizationId, CHUNK],
    );
    if (!rows.length) return false;
    // Per resource, its distinct ids in the order first captured; the resources in that order too.
    const byResource = new Map<string, Set<string>>();
    for (const r of (rows as { seq: string; resource: string; id: string }[]).sort((a, b) => Number(a.seq) - Number(b.seq))) {
      const ids = byResource.get(r.resource) ?? new Set<string>();
      byResource.set(r.resource, ids.add(r.id));
    }
    let time: string | undefined;
    const now = async () => (time ??= await transactionTime(trx));
    const entries: ChangeEntry[] = [];
    const backfills: string[] = [];
    for (const [resource, ids] of byResource) {
      const found = await entriesOf(sources, trx, organizationId, resource, [...ids], now);
      entries.push(...found.entries);
      if (found.backfill) backfills.push(resource);
    }
    if (backfills.length) await requestBackfill(trx, organizationId, backfills);
    // The last statement (append.ts).
    await appendChanges(trx, organizationId, entries, DATABASE_ORIGIN);
    return true;
  });
}

/**
 * Appends every captured change of one organization (GET /reconciliation/{resource} before it
 * answers). With `stopping`, ends between chunks once it holds; what is left stays queued.
 */
export async function drainCaptures(sources: ReconciledSources, db: Db, organizationId: string, stopping: Stopping = () => false): Promise<void> {
  const exists = await db('organizations').where({ id: organizationId }).first('id');
  if (!exists) {
    // Rows its deletion's cascade queued: there is no feed left to append them to.
    await db('feed_captures').where({ organization_id: organizationId }).delete();
    return;
  }
  while (!stopping() && (await drainChunk(sources, db, organizationId)));
}

/**
 * Appends every organization's captured changes (the worker's `feed_capture` task). One
 * organization's failure does not hold the others' entries back: it is thrown after them (the
 * task fails, graphile-worker logs and retries it; its rows stay queued).
 */
export async function runPendingCaptures(sources: ReconciledSources, db: Db, stopping: Stopping = () => false): Promise<void> {
  const { rows } = await db.raw('SELECT DISTINCT organization_id FROM feed_captures');
  let failure: unknown;
  for (const { organization_id } of rows as { organization_id: string }[]) {
    if (stopping()) break;
    await drainCaptures(sources, db, organization_id, stopping).catch((err) => (failure ??= err));
  }
  if (failure) throw failure;
}
