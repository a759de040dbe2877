import type { Knex } from 'knex';
import { conflict, notFound } from '../errors';
import type { Json } from './json';
import type { Queryable } from './knex';
import { ResourceDef, ScopeOptions, oneByIdJson, resolveId, scoped } from './resource';

/**
 * The plain writes of a resource, over its ResourceDef: every statement names the caller's
 * organization, and each write answers with the object as the resource's reads return it (or
 * undefined when the organization has no such object).
 */

/**
 * Whether another live object of the organization (among those `within` keeps, e.g. one job's) has
 * the code, in the column of the `code` field.
 */
export async function codeInUse(
  db: Queryable,
  def: ResourceDef,
  orgId: string,
  code: string,
  exceptId?: string,
  within: (q: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q,
): Promise<boolean> {
  const column = def.columns.code?.raw;
  if (!column) throw new Error(`${def.table} has no code column`);
  const q = within(scoped(db, def, orgId)).where(column, code);
  if (exceptId) q.whereNot(`${def.alias}.id`, exceptId);
  return !!(await q.first(`${def.alias}.id`));
}

/** 409 when another live object of the organization has the code: codes are unique among live objects. */
export async function checkCodeFree(db: Queryable, def: ResourceDef, orgId: string, code: string, exceptId?: string): Promise<void> {
  if (await codeInUse(db, def, orgId, code, exceptId)) throw conflict('body.code', `${code} is already used`);
}

/** A table row: column -> value. */
export type Row = Record<string, unknown>;

const writableColumns = new WeakMap<ResourceDef, [field: string, column: string][]>();

/** The plain column (`name` of `alias.name`) each writable field reads; refuses anything else. */
function columnsToWrite(def: ResourceDef): [string, string][] {
  let pairs = writableColumns.get(def);
  if (!pairs) {
    if (!def.writable) throw new Error(`${def.table}: the resource declares no writable fields`);
    pairs = def.writable.map((field) => {
      const raw = def.columns[field]?.raw ?? '';
      const column = raw.startsWith(`${def.alias}.`) ? raw.slice(def.alias.length + 1) : '';
      if (!/^[a-z_][a-z0-9_]*$/.test(column)) throw new Error(`${def.table}.${field} is not a plain column of the table: it cannot be written`);
      return [field, column];
    });
    writableColumns.set(def, pairs);
  }
  return pairs;
}

/**
 * The row a create or update writes: each writable field of the input in its column. A field left
 * out (undefined) is not written; null is written as NULL.
 */
export function rowOf(def: ResourceDef, input: object): Row {
  const row: Row = {};
  for (const [field, column] of columnsToWrite(def)) {
    const value = (input as Record<string, unknown>)[field];
    if (value !== undefined) row[column] = value;
  }
  return row;
}

// A write answers with the object as it now is, whatever its state (a deletion's answer is deleted).
const ANY_STATE: ScopeOptions = { includeDeleted: true };

/** Inserts the organization's new object; returns it. */
export async function insertOne<T>(db: Queryable, def: ResourceDef, orgId: string, row: Row): Promise<Json<T>> {
  const [{ id }] = await db(def.table)
    .insert({ ...row, organization_id: orgId })
    .returning('id');
  return (await oneByIdJson<T>(db, def, orgId, id, ANY_STATE))!;
}

/**
 * Writes the row (and updated_at) to the object `id`, one the caller resolved in the organization.
 * Only while it is live: the statement takes the row's lock and PostgreSQL checks `deleted_at`
 * again once a concurrent deletion has committed, so a write racing a DELETE finds nothing rather
 * than changing a deleted object. Returns whether the object was written.
 */
export async function updateRow(db: Queryable, def: ResourceDef, orgId: string, id: string, row: Row): Promise<boolean> {
  const q = db(def.table).where({ organization_id: orgId, id });
  if (def.softDelete) q.whereNull('deleted_at');
  return (await q.update({ ...row, updated_at: db.fn.now() })) > 0;
}

/** The 404 of an object another request deleted (or that was never live) while this one went on. */
function gone(def: ResourceDef, id: string) {
  return notFound(`No ${def.table.replace(/_/g, ' ').replace(/s$/, '')} matches ${id} any more: it was deleted.`);
}

/** updateRow, answered with the object as it now is; 404 when it was deleted meanwhile. */
export async function updateById<T>(db: Queryable, def: ResourceDef, orgId: string, id: string, row: Row): Promise<Json<T> | undefined> {
  if (!(await updateRow(db, def, orgId, id, row))) throw gone(def, id);
  return oneByIdJson<T>(db, def, orgId, id, ANY_STATE);
}

/**
 * Marks the object `id` (resolved by the caller) deleted; returns it as deleted. A deletion is
 * stored once: of concurrent deletions, the first to take the row's lock stamps `deleted_at`, the
 * others find it set (checked again after the lock) and answer 404, so one `*.deleted` entry
 * reaches the feed.
 */
export async function softDeleteById<T>(db: Queryable, def: ResourceDef, orgId: string, id: string): Promise<Json<T> | undefined> {
  if (!def.softDelete) throw new Error(`${def.table} does not soft-delete`);
  return updateById<T>(db, def, orgId, id, { deleted_at: db.fn.now() });
}

/** Updates the live object behind `:idOrCode`; undefined when the organization has none. */
export async function updateByIdOrCode<T>(db: Queryable, def: ResourceDef, orgId: string, idOrCode: string, row: Row): Promise<Json<T> | undefined> {
  const id = await resolveId(db, def, orgId, idOrCode);
  return id ? updateById<T>(db, def, orgId, id, row) : undefined;
}

/** Soft-deletes the live object behind `:idOrCode`; undefined when the organization has none. */
export async function softDeleteByIdOrCode<T>(db: Queryable, def: ResourceDef, orgId: string, idOrCode: string): Promise<Json<T> | undefined> {
  const id = await resolveId(db, def, orgId, idOrCode);
  return id ? softDeleteById<T>(db, def, orgId, id) : undefined;
}
