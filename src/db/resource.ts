import type { Knex } from 'knex';
import { Json, asJson } from '../http/json';
import { Columns, isUuid, selectList } from './columns';
import { ListParams, applyFilter, applyList, applyOrder } from './list';
import type { Queryable } from './knex';

/**
 * A resource's table and column map, and the shared reads every resource uses: tenancy scoping,
 * `:idOrCode` lookup, soft-delete exclusion, and JSON pages built in PostgreSQL.
 */
export interface ResourceDef {
  table: string;
  alias: string;
  columns: Columns;
  /** Raw code column for `:idOrCode` lookups, if the resource has codes. */
  codeColumn?: string;
  /** Has deleted_at; deleted rows are hidden unless asked for. */
  softDelete?: boolean;
  /** Extra FROM clauses (joins) the column expressions need. */
  joins?: (q: Knex.QueryBuilder) => void;
}

export interface ScopeOptions {
  includeDeleted?: boolean;
}

export const idColumnOf = (def: ResourceDef) => `${def.alias}.id`;

/** FROM the resource's table, limited to the caller's organization (and to live rows). */
export function scoped(db: Queryable, def: ResourceDef, orgId: string, opts: ScopeOptions = {}): Knex.QueryBuilder {
  const q = db({ [def.alias]: def.table }).where(`${def.alias}.organization_id`, orgId);
  if (def.joins) def.joins(q);
  if (def.softDelete && !opts.includeDeleted) q.whereNull(`${def.alias}.deleted_at`);
  return q;
}

/** Matches `:idOrCode`: the ID when the value is one, otherwise (or also) the code. */
export function whereIdOrCode(q: Knex.QueryBuilder, def: ResourceDef, idOrCode: string): Knex.QueryBuilder {
  const id = `${def.alias}.id`;
  if (!def.codeColumn) return isUuid(idOrCode) ? q.where(id, idOrCode) : q.whereRaw('false');
  if (!isUuid(idOrCode)) return q.where(def.codeColumn, idOrCode);
  // A code may look like a uuid: prefer the object whose ID it is.
  return q.where((w) => w.where(id, idOrCode).orWhere(def.codeColumn!, idOrCode)).orderByRaw(`(${id} = ?) DESC`, [idOrCode]);
}

export function whereId(q: Knex.QueryBuilder, def: ResourceDef, id: string): Knex.QueryBuilder {
  return isUuid(id) ? q.where(`${def.alias}.id`, id) : q.whereRaw('false');
}

/** One page of the resource as a JSON array, in one statement. */
export async function listJson<T>(
  db: Queryable,
  def: ResourceDef,
  q: Knex.QueryBuilder,
  params: ListParams,
  skipFilters: string[] = [],
): Promise<Json<T[]>> {
  const page = q.clone().select(db.raw(selectList(def.columns)));
  applyList(page, def.columns, params, `${def.alias}.id`, skipFilters);
  const row = await db.select(db.raw(`coalesce('[' || string_agg(row_to_json(x)::text, ',') || ']', '[]') AS json`)).from(page.as('x')).first();
  return asJson<T[]>(row.json);
}

/** All rows of the query as a JSON array in the given order (for unpaged lists). */
export async function allJson<T>(db: Queryable, def: ResourceDef, q: Knex.QueryBuilder, orderBy: string): Promise<Json<T[]>> {
  const rows = q.clone().select(db.raw(selectList(def.columns))).orderByRaw(orderBy);
  const row = await db.select(db.raw(`coalesce('[' || string_agg(row_to_json(x)::text, ',') || ']', '[]') AS json`)).from(rows.as('x')).first();
  return asJson<T[]>(row.json);
}

/** The first row of the query as one JSON object, or undefined. */
export async function oneJson<T>(db: Queryable, def: ResourceDef, q: Knex.QueryBuilder): Promise<Json<T> | undefined> {
  const one = q.clone().select(db.raw(selectList(def.columns))).limit(1);
  const row = await db.select(db.raw('row_to_json(x)::text AS json')).from(one.as('x')).first();
  return row ? asJson<T>(row.json) : undefined;
}

/** The ID behind `:idOrCode` in the caller's organization, or undefined. */
export async function resolveId(db: Queryable, def: ResourceDef, orgId: string, idOrCode: string, opts: ScopeOptions = {}): Promise<string | undefined> {
  const q = whereIdOrCode(scoped(db, def, orgId, opts), def, idOrCode).select(`${def.alias}.id`).first();
  const row = await q;
  return row?.id;
}

export interface PageMeta {
  total: number;
  limit: number;
  offset: number;
}

/**
 * `{"meta":{"total","limit","offset"},"data":[...]}` in ONE statement: the page and the size of
 * the whole filtered set. `filtered` carries the tenancy scope and every filter; `order` sorts the
 * page (ending with a unique key); `metaLimit` is the limit to report (defaults to the page size).
 */
export async function pageWithTotalJson<T>(
  db: Queryable,
  def: ResourceDef,
  filtered: Knex.QueryBuilder,
  page: { limit: number; offset: number; order: (q: Knex.QueryBuilder) => void; metaLimit?: number },
): Promise<Json<{ meta: PageMeta; data: T[] }>> {
  const rows = filtered.clone().select(db.raw(selectList(def.columns)));
  page.order(rows);
  rows.limit(page.limit).offset(page.offset);
  const row = await db
    .select(
      db.raw('(SELECT count(*) FROM ? AS c)::int AS total', [filtered.clone().select(db.raw('1'))]),
      db.raw(`(SELECT coalesce('[' || string_agg(row_to_json(x)::text, ',') || ']', '[]') FROM ? AS x) AS json`, [rows]),
    )
    .first();
  const meta = JSON.stringify({ total: row.total, limit: page.metaLimit ?? page.limit, offset: page.offset });
  return asJson<{ meta: PageMeta; data: T[] }>(`{"meta":${meta},"data":${row.json}}`);
}

/** A bulk list page (`GET /items`, `GET /invoice-items`): filters and order from the query. */
export function bulkPageJson<T>(db: Queryable, def: ResourceDef, scopedQuery: Knex.QueryBuilder, params: ListParams): Promise<Json<{ meta: PageMeta; data: T[] }>> {
  const filtered = scopedQuery.clone();
  applyFilter(filtered, def.columns, params.filter);
  return pageWithTotalJson<T>(db, def, filtered, {
    limit: params.limit,
    offset: params.offset,
    order: (q) => applyOrder(q, def.columns, params.orderBy, params.direction, `${def.alias}.id`),
  });
}
