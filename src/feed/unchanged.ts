import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../db/knex';
import type { ChangeEntry } from './append';

/**
 * "A write that changes nothing is nothing": the one rule, applied to every write's feed entries
 * inside its transaction (src/feed/emit.ts runs it after each write handler).
 *
 * An entry changed nothing when its object existed before the write and every top-level field of
 * its `data` equals the object's previous state (its read as stored before the write), `updatedAt`
 * aside: that is the stamp of a change, not a change. Such entries are dropped. A write none of
 * whose entries changed anything is undone (src/feed/emit.ts rolls back to the savepoint taken
 * before it ran) and answers the object as stored. Every kept entry that changes an existing
 * object (every event but `created` and `deleted`) records `changedFields` and `previous`.
 *
 * Creations and deletions always change something. An `order_tag` is named by its tag's id,
 * which is on many orders: it has no single previous state, and its writes emit entries only for
 * attachments they really made (src/resources/order-tags).
 */
const STAMP = 'updatedAt';

const NOT_COMPARED = new Set<string>(['order_tag']);

/** Whether the entry's object may have a previous state to compare with. */
const comparable = (e: ChangeEntry) => !NOT_COMPARED.has(e.resource) && !e.type.endsWith('.created') && !e.type.endsWith('.deleted');

type Data = Record<string, unknown>;

/** The top-level fields of `data` whose values differ from `before`'s (never `updatedAt`). */
export function changedFieldsOf(data: Data, before: Data): string[] {
  return Object.keys(data).filter((k) => k !== STAMP && !isDeepStrictEqual(data[k], before[k] ?? null));
}

/**
 * The objects' states before the write, by `<resource>:<id>`: the object as its read returned it
 * after the last change the feed recorded for it (an object the feed never recorded, or whose
 * last change was its deletion, has none, and its entries are kept as they are).
 */
export async function previousStates(db: Queryable, organizationId: string, entries: ChangeEntry[]): Promise<Map<string, Data>> {
  const wanted = entries.filter(comparable);
  const found = new Map<string, Data>();
  if (!wanted.length) return found;
  const { rows } = (await db.raw(
    `SELECT DISTINCT ON (c.resource, c.resource_id) c.resource, c.resource_id AS id, c.type, c.data
       FROM change_feed c
       JOIN (SELECT DISTINCT * FROM unnest(?::text[], ?::uuid[])) AS w(resource, id) ON c.resource = w.resource AND c.resource_id = w.id
      WHERE c.organization_id = ?
      ORDER BY c.resource, c.resource_id, c.position DESC`,
    [wanted.map((e) => e.resource), wanted.map((e) => e.id), organizationId],
  )) as { rows: { resource: string; id: string; type: string; data: Data }[] };
  for (const r of rows) if (!r.type.endsWith('.deleted')) found.set(`${r.resource}:${r.id}`, r.data);
  return found;
}

/** What the rule made of a write's entries. */
export interface Settled {
  /** The entries that change something, with changedFields and previous where they update an object. */
  kept: ChangeEntry[];
  /** The states as stored of the objects whose entries changed nothing, by id. */
  unchanged: Map<string, Data>;
}

/**
 * Applies the rule to one write's entries (in the write's transaction, before anything is appended).
 * `changedAnyway`: ids of objects the write changed in a way their read does not show (a user
 * assigned to a job: ChangeCollector.markUpdated); their entries are kept, `changedFields` maybe empty.
 */
export async function settle(db: Queryable, organizationId: string, entries: ChangeEntry[], changedAnyway: ReadonlySet<string>): Promise<Settled> {
  const before = await previousStates(db, organizationId, entries);
  const kept: ChangeEntry[] = [];
  const unchanged = new Map<string, Data>();
  for (const e of entries) {
    const prior = comparable(e) ? before.get(`${e.resource}:${e.id}`) : undefined;
    const data = e.data as Data;
    if (!prior || !data || typeof data !== 'object') {
      kept.push(e);
      continue;
    }
    const changedFields = changedFieldsOf(data, prior);
    if (!changedFields.length && !changedAnyway.has(e.id)) {
      unchanged.set(e.id, prior);
      continue;
    }
    kept.push({ ...e, changedFields, previous: Object.fromEntries(changedFields.map((k) => [k, prior[k] ?? null])) });
  }
  return { kept, unchanged };
}
