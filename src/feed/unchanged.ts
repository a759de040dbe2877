import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import type { Queryable } from '../db/knex';
import { JsonStream } from '../db/json';
import type { ChangeCollector, ChangeEntry } from './append';
import { readObjectStates } from './object-states';

/**
 * "A write that changes nothing is nothing": the one rule, applied to every write's feed entries
 * inside its transaction (underNoOpRule, below: a step of every write that enters the feed,
 * src/http/operation.ts).
 *
 * An entry changed nothing when its object existed before the write and every top-level field of
 * its `data` equals the object's previous state (its read as stored before the write), `updatedAt`
 * aside: that is the stamp of a change, not a change. A write none of whose entries changed
 * anything is undone (underNoOpRule rolls back to the savepoint taken before it ran),
 * records no entry and answers the objects as stored. A write that changed something records the
 * entries that did; an entry that changed nothing is dropped, unless its object's `updatedAt` was
 * stamped all the same (then it is kept with empty `changedFields`, so that the feed and the
 * reconciliation states never disagree with what is stored; set-based writes avoid it by leaving
 * unchanged rows untouched, src/db/batch.ts). Every kept entry that changes an existing
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

/**
 * The top-level fields of `data` whose values differ from `before`'s (never `updatedAt`). A field
 * `before` does not hold is not compared: its previous value is unknown (the job a counter change
 * replies with shows the counter, the job's read does not; the write says, with markUpdated).
 */
export function changedFieldsOf(data: Data, before: Data): string[] {
  return Object.keys(data).filter((k) => k !== STAMP && k in before && !sameValue(data[k], before[k]));
}

/** Equal JSON values: most fields are strings, numbers or null, which need no deep comparison. */
const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && isDeepStrictEqual(a, b));

/**
 * The objects' states before the write, by `<resource>:<id>`: their reads as the feed last stored
 * them (feed_objects, src/feed/object-states.ts). An object without one (none yet, or before its
 * backfill ran) keeps its entries as they are.
 */
export async function previousStates(db: Queryable, organizationId: string, entries: ChangeEntry[]): Promise<Map<string, Data>> {
  const byResource = new Map<string, string[]>();
  for (const e of entries.filter(comparable)) {
    const ids = byResource.get(e.resource);
    if (ids) ids.push(e.id);
    else byResource.set(e.resource, [e.id]);
  }
  const found = new Map<string, Data>();
  for (const [resource, ids] of byResource) {
    for (const [id, state] of await readObjectStates(db, organizationId, resource, [...new Set(ids)])) found.set(`${resource}:${id}`, state.data as Data);
  }
  return found;
}

/** What the rule made of a write's entries. */
export interface Settled {
  /** Whether any entry changes something: when none does, the write is undone. */
  changed: boolean;
  /**
   * The entries to record when the write stands, in order: those that change something (with
   * changedFields and previous where they update an object), and those whose object only got a
   * new `updatedAt` (changedFields empty): the write stored it, and the feed never disagrees with
   * what is stored. A write that changes nothing has none of either (it is undone).
   */
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
  let changed = false;
  for (const e of entries) {
    const prior = comparable(e) ? before.get(`${e.resource}:${e.id}`) : undefined;
    const data = e.data as Data;
    if (!prior || !data || typeof data !== 'object') {
      kept.push(e);
      changed = true;
      continue;
    }
    const changedFields = changedFieldsOf(data, prior);
    const what = { ...e, changedFields, previous: Object.fromEntries(changedFields.map((k) => [k, prior[k]])) };
    if (changedFields.length || changedAnyway.has(e.id)) {
      kept.push(what);
      changed = true;
    } else {
      unchanged.set(e.id, prior);
      if (STAMP in data && !isDeepStrictEqual(data[STAMP], prior[STAMP])) kept.push(what);
    }
  }
  return { changed, kept: changed ? kept : [], unchanged };
}

type Stored = Map<string, Data>;

/** An object of the reply as stored: the write was undone, so its `updatedAt` is the one before. */
const asStored = (value: unknown, stored: Stored): unknown => {
  if (Array.isArray(value)) return value.map((v) => asStored(v, stored));
  if (!value || typeof value !== 'object') return value;
  const prior = stored.get((value as { id?: string }).id ?? '');
  return prior && 'updatedAt' in value ? { ...value, updatedAt: prior.updatedAt } : value;
};

let savepoints = 0;

/** A write's reply, as the rule sees it: its status and body. */
interface WriteReply {
  status: number;
  body?: unknown;
}

/**
 * Runs a write (its handler and the recording of its entries) under the rule, inside the request's
 * transaction: once it has succeeded, the entries it added to `changes` go through settle: those
 * that changed nothing are dropped; when none is left, the write is rolled back to a savepoint
 * taken before it ran (its bumped `updatedAt`, a change order, an integration state, whatever it
 * stored) and answers with the objects as stored (`valueOf` gives its reply as a value), with the
 * same status. What is kept is appended as the transaction's last statement (append.ts). A write
 * that throws records nothing, and its transaction rolls back.
 */
export async function underNoOpRule<R extends WriteReply>(
  tx: Knex.Transaction,
  organizationId: string,
  changes: ChangeCollector,
  write: () => Promise<R>,
  valueOf: (reply: R) => unknown,
): Promise<R> {
  const savepoint = `write_${++savepoints}`;
  await tx.raw(`SAVEPOINT ${savepoint}`);
  const from = changes.entries.length;
  const reply = await write();
  if (reply.status >= 300 || reply.body instanceof JsonStream) return reply;
  const { changed, kept, unchanged } = await settle(tx, organizationId, changes.entries.slice(from), changes.updated);
  changes.entries.splice(from, Infinity, ...kept);
  if (changed) {
    await tx.raw(`RELEASE SAVEPOINT ${savepoint}`);
    return reply;
  }
  // The value first: the reply may be JSON text whose parse is not to be repeated after the rollback.
  const stored = asStored(valueOf(reply), unchanged);
  await tx.raw(`ROLLBACK TO SAVEPOINT ${savepoint}`);
  await tx.raw(`RELEASE SAVEPOINT ${savepoint}`);
  return { ...reply, body: stored };
}
