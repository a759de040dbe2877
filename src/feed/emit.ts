import type { Queryable } from '../db/knex';
import type { ChangeCollector, ChangeEntry } from './append';
import type { ChangeEvent, ChangeType, FeedResource, ResourceWith } from './change-types';

/**
 * Which feed entries a write emits, derived from its reply: each resource declares its writes'
 * emitters (src/resources/<resource>/declarations.ts), built from the helpers below.
 *
 * `data` is the object exactly as its own read endpoint returns it at that change; that is the
 * operation's reply for almost every write (it is read back inside the same transaction). A
 * deletion's `data` is the tombstone: the deleted object as the operation returns it (it carries
 * `id`, `deletedAt` and the parent ids, e.g. `billOfMaterialsId`, `jobId`). Where the reply does
 * not hold the object (a boolean, a list of ids) the emitter reads it in the same transaction
 * (`read`). A batch upsert marks the ids it inserted (ChangeCollector.markCreated, from
 * `xmax = 0` in its RETURNING) so each element is `created` or `updated` as it really was.
 */
/** An object as its read returns it (a feed entry's `data`): its `id` and its fields. */
export type FeedObject = { id: string; [key: string]: unknown };

export interface EmitContext {
  /** The write's transaction. */
  db: Queryable;
  organizationId: string;
  status: number;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The request's body as validated by the contract. */
  input: unknown;
  changes: ChangeCollector;
  /**
   * Objects of a resource as their reads return them, in the order of `ids`, read in the write's
   * transaction: an emitter reads another resource's objects without importing that resource
   * (each resource declares its read, `ReadInOrder`).
   */
  read: (resource: FeedResource, ids: string[]) => Promise<FeedObject[]>;
}

/**
 * A write's feed entries, from its reply as a value (src/http/operation.ts runs it after the handler).
 * The reply is the operation's, as its contract's response schema says (an object, a list of them,
 * a list of ids): each emitter names the shape of its operation's reply where it reads it.
 */
export type Emitter = (reply: unknown, ctx: EmitContext) => ChangeEntry[] | Promise<ChangeEntry[]>;

/** The objects of some ids as their read returns them, in the order of `ids`, as one JSON array text. */
export type ReadInOrder = (db: Queryable, organizationId: string, ids: string[]) => Promise<string>;

/** A feed entry of `resource` and one of its events (change-types.ts); `data` carries its `id`. */
export const entry = <R extends FeedResource>(resource: R, event: ChangeEvent<R>, data: FeedObject): ChangeEntry => ({
  type: `${resource}.${event}` as ChangeType,
  resource,
  id: data.id,
  data,
});

/** The reply is the object. */
export const one =
  <R extends FeedResource>(resource: R, event: ChangeEvent<R>): Emitter =>
  (reply) => [entry(resource, event, reply as FeedObject)];

/** The reply is a list of objects, one entry each. */
export const each =
  <R extends FeedResource>(resource: R, event: ChangeEvent<R>): Emitter =>
  (reply) =>
    (reply as FeedObject[]).map((o) => entry(resource, event, o));

/** A batch upsert's reply: `created` for the ids it inserted, `updated` for the others. */
export const upserted =
  <R extends ResourceWith<'created' | 'updated'>>(resource: R): Emitter =>
  (reply, { changes }) =>
    (reply as FeedObject[]).map((o) => entry(resource, (changes.created.has(o.id) ? 'created' : 'updated') as ChangeEvent<R>, o));

/** The write transaction's time as the API writes timestamps (what its rows store as created_at, deleted_at). */
export const transactionTime = async (db: Queryable): Promise<string> => (await db.raw('SELECT api_ts(now()::timestamptz(3)) AS now')).rows[0].now;

/** The distinct ids among some values (a reply's optional references). */
export const present = (ids: unknown[]): string[] => [...new Set(ids.filter((id): id is string => typeof id === 'string'))];

/**
 * Locations whose representation the write changed besides its own object: created inline with a
 * job, or whose `jobs` / `vendors` lists changed. Read back in one statement; `created` when the
 * location's createdAt is this transaction's now() (as stored, to the millisecond).
 */
export async function locationEntries(ctx: EmitContext, ids: unknown[]): Promise<ChangeEntry[]> {
  const wanted = present(ids);
  if (!wanted.length) return [];
  const now = await transactionTime(ctx.db);
  const found = (await ctx.read('location', wanted)) as { id: string; createdAt: string }[];
  return found.map((l) => entry('location', l.createdAt === now ? 'created' : 'updated', l));
}

/** Whether a write may have changed an object's code or name, which locations show in their `jobs` / `vendors` lists. */
const renames = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && (('inputs' in input && Array.isArray(input.inputs)) || 'code' in input || 'name' in input);

/** The objects of a reply whose code or name the write changed: a batch says which; a single write may have when it gives one. */
export function renamedOf<T extends { id: string }>(objects: T[], ctx: EmitContext): T[] {
  const renamed = ctx.changes.renamed;
  return renamed ? objects.filter((o) => renamed.has(o.id)) : renames(ctx.input) ? objects : [];
}
