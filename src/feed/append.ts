import type { Knex } from 'knex';
import { retryOnConflict } from '../db/retry';
import { rowsPrepared } from '../db/prepared';
import { canonicalForm, onceEach, type FormOf } from '../db/object-digest';
import type { ChangeType, FeedResource } from './change-types';
import { stateCtes, storedForms } from './object-states';
import { type Origin, SYSTEM_ORIGIN } from './origin';

/** One change as it enters the feed. `data` is the object as its own read endpoint returns it. */
export interface ChangeEntry {
  /** `<resource>.<event>`, e.g. `vendor.created`, `item.deleted`, `order.integration_state_changed` (change-types.ts). */
  type: ChangeType;
  /** The resource name, e.g. `vendor`, `item`. */
  resource: FeedResource;
  /** Id (uuid) of the changed object. */
  id: string;
  /** The object at this change, or for a deletion its tombstone (`id`, `deletedAt`, parent id). */
  data: unknown;
  /** For an entry that changes an existing object: the top-level fields of `data` it changed (src/feed/unchanged.ts). */
  changedFields?: string[];
  /** Those fields' values before the change. */
  previous?: Record<string, unknown>;
}

/**
 * Numbers and stores a transaction's changes. This MUST be the transaction's last statement.
 *
 * Why positions follow commit order (per organization), with no PostgreSQL setting beyond the
 * defaults:
 * 1. The upsert of the organization's `feed_heads` row takes that row's lock, held until the
 *    transaction ends. A concurrent writer of the same organization blocks on it here.
 * 2. PostgreSQL makes a committing transaction visible (ProcArrayEndTransaction) before it
 *    releases its locks; so when the waiting writer gets the lock, the holder's commit is already
 *    visible, and at READ COMMITTED (the default; the write transactions never raise it) the
 *    waiter's `ON CONFLICT DO UPDATE` re-reads the latest row version and continues from the
 *    holder's last position. A writer that aborts rolls its head update back with its rows:
 *    positions stay contiguous (1, 2, 3, ...) with no holes.
 * 3. Hence if A gets lower positions than B, A committed before B took its positions, so before B
 *    committed, and every snapshot that sees B's entries sees A's: a reader always sees a prefix
 *    1..n of an organization's positions, and a cursor "after n" never skips a later commit.
 * 4. Nothing runs after this statement (writeTransaction commits right after it), so the lock is
 *    held only for the commit itself, and the holder never waits for another lock: it cannot join
 *    a deadlock. Writers of different organizations never wait for each other here.
 * A timestamp (`now()`, `clock_timestamp()`) or a sequence value taken earlier in the transaction
 * has none of this: a transaction that started later can take a larger value and commit first.
 * `occurred_at` is `clock_timestamp()` at this statement, a moment before the commit: it is for
 * people, never for ordering.
 *
 * Durability: with `synchronous_commit = off` a server crash can forget commits a reader has
 * already seen, and their positions would be handed out again; checkFeedSettings (settings.ts)
 * refuses to start on such a server.
 *
 * Returns the last position written (undefined when there was nothing to write).
 */
export async function appendChanges(
  trx: Knex.Transaction,
  organizationId: string,
  entries: ChangeEntry[],
  origin: Origin = SYSTEM_ORIGIN,
  formOf: FormOf = canonicalForm,
): Promise<number | undefined> {
  if (!entries.length) return undefined;
  // Each changed object's current state (feed_objects) is written by this same statement, after
  // the head's lock (object-states.ts): a state row is only ever written with its organization's
  // head locked, so this statement still never waits for another lock.
  const forms = storedForms(entries, formOf);
  const states = stateCtes(organizationId, entries, forms, origin);
  const rows = await rowsPrepared(
    trx,
    trx.raw(
      `WITH head AS (
         INSERT INTO feed_heads AS h (organization_id, position) VALUES (?, ?)
         ON CONFLICT (organization_id) DO UPDATE SET position = h.position + EXCLUDED.position
         RETURNING position
       ), input AS MATERIALIZED (
         SELECT * FROM ROWS FROM (json_array_elements_text(?::json), json_array_elements_text(?::json), json_array_elements_text(?::json),
                                  json_array_elements(?::json), json_array_elements(?::json)) WITH ORDINALITY AS e(type, resource, id, data, change, ord)
       ), entries AS (
         INSERT INTO change_feed (organization_id, position, type, resource, resource_id, data, changed_fields, previous, origin)
         SELECT ?, head.position - ? + e.ord, e.type, e.resource, e.id::uuid, e.data, e.change->'f', e.change->'p', ?::json
           FROM head, input e
       )${states.sql}
       SELECT position FROM head`,
      [
        organizationId,
        entries.length,
        // Every list travels as one JSON text that PostgreSQL splits once (ROWS FROM zips them by
        // position), with no array literals to escape in node and unescape in PostgreSQL.
        JSON.stringify(entries.map((e) => e.type)),
        JSON.stringify(entries.map((e) => e.resource)),
        JSON.stringify(entries.map((e) => e.id)),
        // The objects as their canonical texts (storedForms), stored as written (json columns; see
        // the migration 20261124090000); the states take theirs from here (stateCtes).
        `[${forms.map((f) => f.text).join(',')}]`,
        JSON.stringify(entries.map((e) => (e.changedFields ? { f: e.changedFields, p: e.previous } : {}))),
        organizationId,
        entries.length,
        // One origin for the whole transaction (its request's).
        JSON.stringify(origin),
        // Last: the bindings of the states' CTEs, which follow every other part of the statement.
        ...states.bindings,
      ],
    ),
  );
  return Number(rows[0].position);
}

/** Collects a write transaction's changes so they can be appended once, as its last statement. */
export class ChangeCollector {
  readonly entries: ChangeEntry[] = [];
  /** Ids a batch upsert inserted (rather than updated): their entries are `<resource>.created`. */
  readonly created = new Set<string>();

  /** Ids changed as a side effect the reply does not show (e.g. a tag recolored while put on an order). */
  readonly updated = new Set<string>();

  /**
   * Ids of existing objects whose name a batch upsert changed. Other objects list them by name
   * (a location its jobs): only these make those objects change. Undefined until a batch says.
   */
  renamed: Set<string> | undefined;

  /** Ids of objects a write attached where they were not (a tag put on an order that did not have it). */
  readonly attached = new Set<string>();

  /** The canonical form of the write's objects, each put in form once (its ETag, its entries' data). */
  readonly formOf: FormOf = onceEach();

  markAttached(ids: Iterable<string>): void {
    for (const id of ids) this.attached.add(id);
  }

  markCreated(ids: Iterable<string>): void {
    for (const id of ids) this.created.add(id);
  }

  markRenamed(ids: Iterable<string>): void {
    this.renamed ??= new Set();
    for (const id of ids) this.renamed.add(id);
  }

  markUpdated(ids: Iterable<string>): void {
    for (const id of ids) this.updated.add(id);
  }

  add(...entries: ChangeEntry[]): void {
    this.entries.push(...entries);
  }
}

/**
 * The `changes` of a request outside a write transaction (a read, the token endpoint): one for
 * all of them, which nothing may record into (there is no transaction whose last statement would
 * append it).
 */
class NoChanges extends ChangeCollector {
  override add(): void {
    throw new Error('a request outside a write transaction records no feed entries');
  }
  override markAttached(): void {
    this.add();
  }
  override markCreated(): void {
    this.add();
  }
  override markRenamed(): void {
    this.add();
  }
  override markUpdated(): void {
    this.add();
  }
}
export const NO_CHANGES: ChangeCollector = new NoChanges();

/**
 * A refusal (an error answer) whose transaction still commits: what the request changed before it
 * decided to refuse stands, with its feed entries. Thrown by a handler for a refusal that must
 * leave a trace, e.g. a stale `LINKED` report that puts a `LINKING` order back in the connector's
 * pull (`OUT_OF_SYNC`); writeTransaction commits, then throws `refusal`. Every other error rolls back.
 */
export class CommittedRefusal extends Error {
  constructor(readonly refusal: Error) {
    super(refusal.message);
  }
}

/**
 * Turns the database's change capture (migration 20261206000000) off for the rest of the
 * transaction: a transaction that appends its own entries is not captured a second time.
 */
export const NOT_CAPTURED = `SELECT set_config('procurement.capturing', 'off', true)`;

/**
 * Runs `work` in one transaction and appends the changes it collected as the transaction's last
 * statement: a change and its feed entries commit together or not at all. A transaction that
 * PostgreSQL aborts on a deadlock or serialization failure is run again from the start, `work`
 * included (src/db/retry.ts): `work` must not have effects outside the transaction. The entries
 * carry `origin` (the request's credential; the system's when the write has no request). When `work`
 * throws a CommittedRefusal, its changes commit and the refusal is thrown after the commit.
 */
export async function writeTransaction<T>(
  db: Knex,
  organizationId: string,
  work: (trx: Knex.Transaction, changes: ChangeCollector) => Promise<T>,
  origin: Origin = SYSTEM_ORIGIN,
): Promise<T> {
  const outcome = await retryOnConflict(() =>
    db.transaction(async (trx): Promise<{ value: T } | { refusal: Error }> => {
      // Its changes enter the feed with it: the database's change capture skips them (captures.ts).
      await trx.raw(NOT_CAPTURED);
      const changes = new ChangeCollector();
      let result: { value: T } | { refusal: Error };
      try {
        result = { value: await work(trx, changes) };
      } catch (err) {
        if (!(err instanceof CommittedRefusal)) throw err;
        result = { refusal: err.refusal };
      }
      // The last statement: knex commits as soon as this resolves (see appendChanges).
      await appendChanges(trx, organizationId, changes.entries, origin, changes.formOf);
      return result;
    }),
  );
  if ('refusal' in outcome) throw outcome.refusal;
  return outcome.value;
}
