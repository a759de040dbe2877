import type { Caller } from '../auth/caller';
import type { BatchOutcome, RejectedElements } from '../db/batch';
import type { Db } from '../db/knex';
import { ResourceDef, existsById, listJson, oneByIdJson, oneByIdOrCodeWithDigest, scoped } from '../db/resource';
import { insertOne, rowOf, softDeleteByIdOrCode, updateByIdOrCode } from '../db/resource-writes';
import type { ChangeCollector } from '../feed/append';
import { Missing, okOrNotFound } from '../http/handler';
import { ListDefaults, ListQuery, listParams } from '../http/list-params';

/**
 * The shapes of handler every resource would otherwise write again. Each returns a handler that a
 * resource assigns to its operationId in its `Handlers<...>` map, which checks it against the
 * contract (`T` is the object's schema; a body or parameter that does not fit is a compile error).
 */
interface Base {
  db: Db;
  caller: Caller;
}
type Keyed<K extends string> = Base & { params: Record<K, string> };

/** The parent named in the path of a child list (`/requisitions/{requisitionId}/items`), and its 404. */
export interface Parent {
  def: ResourceDef;
  /** The child column holding the parent's ID. */
  column: string;
  missing: Missing;
}

/**
 * Plain operations served by the resource's ResourceDef alone: a list, a create, and a get /
 * update / soft delete of the object the path parameter `key` names (looked up as `:idOrCode` when
 * the resource has codes).
 */
export function plainHandlers<T>(def: ResourceDef) {
  return {
    list:
      (defaults: ListDefaults) =>
      async ({ db, caller, query }: Base & { query: ListQuery }) => ({
        status: 200 as const,
        body: await listJson<T>(db, def, scoped(db, def, caller.organizationId), listParams(query, defaults)),
      }),

    /** The page of the children of the parent in the path; 404 when the organization has no such parent. */
    listByParent:
      <K extends string>(key: K, parent: Parent, defaults: ListDefaults) =>
      async ({ db, caller, params, query }: Keyed<K> & { query: ListQuery }) => {
        const orgId = caller.organizationId;
        if (!(await existsById(db, parent.def, orgId, params[key]))) throw parent.missing(params[key]);
        const children = scoped(db, def, orgId).where(parent.column, params[key]);
        return { status: 200 as const, body: await listJson<T>(db, def, children, listParams(query, defaults)) };
      },

    create:
      () =>
      async ({ db, caller, body }: Base & { body: object }) => ({
        status: 201 as const,
        body: await insertOne<T>(db, def, caller.organizationId, rowOf(def, body)),
      }),

    /** A single read: its one statement is coalesced with the reads of its kind (readsOnlyCoalesced). */
    get: <K extends string>(key: K, missing: Missing) =>
      coalescedOnly(async ({ db, caller, params }: Keyed<K>) => {
        const orgId = caller.organizationId;
        if (!def.codeColumn) return okOrNotFound(oneByIdJson<T>(db, def, orgId, params[key]), missing, params[key]);
        // With codes, the prepared `:idOrCode` read (GET /jobs/J-1042 is the hottest read there is),
        // with its entity tag when its stored state is current (oneByIdOrCodeWithDigest).
        const found = await oneByIdOrCodeWithDigest<T>(db, def, orgId, params[key]);
        if (!found) throw missing(params[key]);
        return { status: 200 as const, body: found.json, ...(found.digest ? { headers: { ETag: `"${found.digest}"` } } : {}) };
      }),

    update:
      <K extends string>(key: K, missing: Missing) =>
      ({ db, caller, params, body }: Keyed<K> & { body: object }) =>
        okOrNotFound(updateByIdOrCode<T>(db, def, caller.organizationId, params[key], rowOf(def, body)), missing, params[key]),

    remove:
      <K extends string>(key: K, missing: Missing) =>
      ({ db, caller, params }: Keyed<K>) =>
        okOrNotFound(softDeleteByIdOrCode<T>(db, def, caller.organizationId, params[key]), missing, params[key]),
  };
}

const onlyCoalesced = new WeakSet<object>();
const coalescedOnly = <H extends object>(handler: H): H => (onlyCoalesced.add(handler), handler);

/**
 * Whether a handler's only use of the database is one single read outside a transaction, which
 * src/db/coalesced-reads.ts runs with the reads of its kind, at most one statement of a kind at a
 * time. Such a request holds no connection of its own however many of them run, so the fair share
 * of the pool (http/fair-share.ts) need not count it (app.ts).
 */
export const readsOnlyCoalesced = (handler: unknown): boolean => typeof handler === 'function' && onlyCoalesced.has(handler);

/** A create whose rules live in `create` (codes, references): 201 with the new object. */
export const createdBy =
  <B, T>(create: (db: Db, orgId: string, body: B) => Promise<T>) =>
  async ({ db, caller, body }: Base & { body: B }) => ({ status: 201 as const, body: await create(db, caller.organizationId, body) });

/**
 * A batch upsert (`POST /jobs/batch`): 200 with the objects; those it inserted enter the feed as
 * created, the others as updated. Its list is `inputs` (BATCH_LISTS in resources/index.ts).
 */
export const upsertedBy =
  <I, T>(upsert: (db: Db, orgId: string, inputs: I[], outcome: BatchOutcome, rejected: RejectedElements) => Promise<T>) =>
  async ({ db, caller, body, changes, rejected }: Base & { body: { inputs: I[] }; changes: ChangeCollector; rejected: RejectedElements }) => ({
    status: 200 as const,
    body: await upsert(db, caller.organizationId, body.inputs, changes, rejected),
  });
