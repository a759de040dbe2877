import type { Knex } from 'knex';
import { retryOnConflict } from '../db/retry';

/** One change as it enters the feed. `data` is the object as its own read endpoint returns it. */
export interface ChangeEntry {
  /** `<resource>.<event>`, e.g. `vendor.created`, `item.deleted`, `order.integration_state_changed`. */
  type: string;
  /** The resource name, e.g. `vendor`, `item`. */
  resource: string;
  /** Id (uuid) of the changed object. */
  id: string;
  /** The object at this change, or for a deletion its tombstone (`id`, `deletedAt`, parent id). */
  data: unknown;
}

/**
 * Numbers and stores a transaction's changes. This MUST be the transaction's last statement: the
 * upsert of the organization's `feed_heads` row takes that row's lock, which PostgreSQL holds
 * until commit, so a concurrent writer of the same organization waits here until this transaction
 * has committed (and is visible) before it takes the next positions. Positions therefore follow
 * commit order per organization, which no timestamp or sequence value taken earlier in a
 * transaction does (both can be overtaken by a transaction that commits first). Taking the lock
 * last also means a holder never waits for another lock, so it cannot join a deadlock.
 *
 * Returns the last position written (undefined when there was nothing to write).
 */
export async function appendChanges(trx: Knex.Transaction, organizationId: string, entries: ChangeEntry[]): Promise<number | undefined> {
  if (!entries.length) return undefined;
  const result = await trx.raw(
    `WITH head AS (
       INSERT INTO feed_heads AS h (organization_id, position) VALUES (?, ?)
       ON CONFLICT (organization_id) DO UPDATE SET position = h.position + EXCLUDED.position
       RETURNING position
     )
     INSERT INTO change_feed (organization_id, position, type, resource, resource_id, data)
     SELECT ?, head.position - ? + e.ord, e.type, e.resource, e.id, e.data
       FROM head, unnest(?::text[], ?::text[], ?::uuid[], ?::jsonb[]) WITH ORDINALITY AS e(type, resource, id, data, ord)
     RETURNING position`,
    [
      organizationId,
      entries.length,
      organizationId,
      entries.length,
      entries.map((e) => e.type),
      entries.map((e) => e.resource),
      entries.map((e) => e.id),
      entries.map((e) => JSON.stringify(e.data)),
    ],
  );
  const rows = result.rows as { position: string | number }[];
  return Math.max(...rows.map((r) => Number(r.position)));
}

/** Collects a write transaction's changes so they can be appended once, as its last statement. */
export class ChangeCollector {
  readonly entries: ChangeEntry[] = [];

  add(...entries: ChangeEntry[]): void {
    this.entries.push(...entries);
  }
}

/**
 * Runs `work` in one transaction and appends the changes it collected as the transaction's last
 * statement: a change and its feed entries commit together or not at all. A transaction that
 * PostgreSQL aborts on a deadlock or serialization failure is run again from the start, `work`
 * included (src/db/retry.ts): `work` must not have effects outside the transaction.
 */
export async function writeTransaction<T>(db: Knex, organizationId: string, work: (trx: Knex.Transaction, changes: ChangeCollector) => Promise<T>): Promise<T> {
  return retryOnConflict(() =>
    db.transaction(async (trx) => {
      const changes = new ChangeCollector();
      const result = await work(trx, changes);
      await appendChanges(trx, organizationId, changes.entries);
      return result;
    }),
  );
}
