import type { Knex } from 'knex';
import { Json, JsonParts, JsonStream, PART_BYTES, ROWS_OF_X_AS_JSON_ARRAY, asJson } from './json';
import { Columns, isUuid, quoteIdent, selectList } from './columns';
import { Direction, ListParams, applyFilter, applyList, applyOrder } from './list';
import { decodeCursor, encodeCursor, whereAfter } from './cursor';
import { firstRowPrepared, rowsPrepared } from './prepared';
import { rowsOf, streamRows } from './stream';
import { invalidField } from '../errors';
import { CoalescedReads } from './coalesced-reads';
import type { Queryable } from './knex';

/**
 * A resource's table and column map, and the shared reads every resource uses: tenancy scoping,
 * `:idOrCode` lookup, soft-delete exclusion, and JSON built in PostgreSQL. The shared writes are in
 * resource-writes.ts.
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
  /**
   * The `live_row_counts` relation holding the exact number of the organization's visible rows
   * (kept by triggers with every write), which answers an unfiltered list's total without counting.
   */
  liveCount?: string;
  /**
   * The API fields a create or update may write (resource-writes.ts rowOf), each a plain column of
   * `columns`: nothing else in a request body reaches the table.
   */
  writable?: readonly string[];
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
export function whereIdOrCode(q: Knex.QueryBuilder, def: ResourceDef, idOrCode: string, as?: KeyColumns): Knex.QueryBuilder {
  const id = `${def.alias}.id`;
  const asId = as?.id ?? idOrCode;
  const asCode = as?.code ?? idOrCode;
  if (!def.codeColumn) return isUuid(idOrCode) ? q.where(id, asId) : q.whereRaw('false');
  if (!isUuid(idOrCode)) return q.where(def.codeColumn, asCode);
  // A code may look like a uuid: prefer the object whose ID it is.
  return q.where((w) => w.where(id, asId).orWhere(def.codeColumn!, asCode)).orderByRaw(`(${id} = ?) DESC`, [asId]);
}

/**
 * What whereIdOrCode and whereId compare with in place of the value, in a statement that takes
 * its keys from elsewhere (a batch of single reads: its VALUES list of keys), as an ID and as a code.
 * The value given then only tells the shape (an ID or a code).
 */
export interface KeyColumns {
  id: Knex.Raw;
  code: Knex.Raw;
}

export function whereId(q: Knex.QueryBuilder, def: ResourceDef, id: string, as?: KeyColumns): Knex.QueryBuilder {
  return isUuid(id) ? q.where(`${def.alias}.id`, as?.id ?? id) : q.whereRaw('false');
}

/** One page of the resource as a JSON array, in one statement, held in parts (see PART_BYTES). */
export async function listJson<T>(
  db: Queryable,
  def: ResourceDef,
  q: Knex.QueryBuilder,
  params: ListParams,
  skipFilters: string[] = [],
): Promise<JsonParts<T[]>> {
  const page = q.clone().select(db.raw(selectList(def.columns)));
  applyList(page, def.columns, params, `${def.alias}.id`, skipFilters);
  // The objects in the page's order, cut into comma-joined parts where the bytes before an object
  // reach a multiple of PART_BYTES.
  const rows = await rowsPrepared(
    db,
    db.raw(
      `SELECT string_agg(j, ',' ORDER BY rn) AS part, count(*)::int AS n
         FROM (SELECT j, rn, (sum(octet_length(j)) OVER (ORDER BY rn) - octet_length(j)) / ${PART_BYTES} AS part_no
                 FROM (SELECT row_to_json(x)::text AS j, row_number() OVER () AS rn FROM ? AS x) AS numbered) AS sized
        GROUP BY part_no ORDER BY part_no`,
      [page],
    ),
  );
  const json = JsonParts.of<T[]>(
    '[',
    rows.map((r) => r.part as string),
    ']',
  );
  json.elementCount = rows.reduce((n, r) => n + (r.n as number), 0);
  json.pageLimit = params.limit;
  return json;
}

/** All rows of the query as a JSON array in the given order (for unpaged lists). */
export async function allJson<T>(db: Queryable, def: ResourceDef, q: Knex.QueryBuilder, orderBy: string): Promise<Json<T[]>> {
  const rows = q
    .clone()
    .select(db.raw(selectList(def.columns)))
    .orderByRaw(orderBy);
  const row = await firstRowPrepared(db, db.select(db.raw(`${ROWS_OF_X_AS_JSON_ARRAY} AS json`)).from(rows.as('x')));
  return asJson<T[]>(row!.json as string);
}

/** The first row of the query as one JSON object, or undefined. */
export async function oneJson<T>(db: Queryable, def: ResourceDef, q: Knex.QueryBuilder): Promise<Json<T> | undefined> {
  const one = q
    .clone()
    .select(db.raw(selectList(def.columns)))
    .limit(1);
  const row = await firstRowPrepared(db, db.select(db.raw('row_to_json(x)::text AS json')).from(one.as('x')));
  return row ? asJson<T>(row.json as string) : undefined;
}

const ORGANIZATION_SLOT = Symbol('organization');
// Placeholder values the statement is built with, found again among knex's bindings.
const PLACEHOLDER_ORGANIZATION = '\u0000organization';
const PLACEHOLDER = { id: 'b0b0b0b0-0000-4000-8000-00000000000b', code: '\u0000code' };
const PLACEHOLDER_KEY = '\u0000key';
const compiledReads = new WeakMap<ResourceDef, Map<string, { sql: string; slots: unknown[] }>>();

/**
 * The reconciled resource whose object states (feed_objects) are the reads of each ResourceDef:
 * named by the reconciliation's table of reconciled resources (src/resources/index.ts), the one
 * place that pairs a resource with the definition its reads and states are built with.
 */
const statesOf = new WeakMap<ResourceDef, string>();
export function keepsStatesOf(resource: string, def: ResourceDef): void {
  statesOf.set(def, resource);
}

/**
 * One object by `:idOrCode` (GET /jobs/J-1042) as JSON. Its statement is built by knex once per
 * resource and shape (an ID or a code; with or without deleted rows) from placeholder values, and
 * each request only puts its own values in: building the query cost more node time than the
 * database took to answer it.
 */
export async function oneByIdOrCodeJson<T>(
  db: Queryable,
  def: ResourceDef,
  orgId: string,
  idOrCode: string,
  opts: ScopeOptions = {},
): Promise<Json<T> | undefined> {
  return (await oneByIdOrCode<T>(db, def, orgId, idOrCode, opts, false))?.json;
}

/** One object by ID as JSON, or undefined (a non-ID matches nothing): the same compiled statement as oneByIdOrCodeJson's, matching the ID only. */
export async function oneByIdJson<T>(db: Queryable, def: ResourceDef, orgId: string, id: string, opts: ScopeOptions = {}): Promise<Json<T> | undefined> {
  if (!isUuid(id)) return undefined;
  return (await oneByIdOrCode<T>(db, def, orgId, id, opts, false, true))?.json;
}

/**
 * oneByIdOrCodeJson with the object's digest (its entity tag), when the same statement finds the
 * object's stored state (feed_objects) equal to the object as read now: equal as JSON values
 * (jsonb equality: key order, escapes and a number's spelling aside), which is exactly when their
 * RFC 8785 forms, and so their digests, are equal. A state not yet brought up to date (a change
 * made in the database that the capture has not appended yet) is not equal: no digest, and the
 * caller computes it from the text (http/operation.ts, the ETag step). Spares a single read the
 * parse, canonical form and hash of its object, which were a sixth of its cost.
 */
export async function oneByIdOrCodeWithDigest<T>(
  db: Queryable,
  def: ResourceDef,
  orgId: string,
  idOrCode: string,
): Promise<{ json: Json<T>; digest?: string } | undefined> {
  return oneByIdOrCode<T>(db, def, orgId, idOrCode, {}, statesOf.has(def));
}

async function oneByIdOrCode<T>(
  db: Queryable,
  def: ResourceDef,
  orgId: string,
  idOrCode: string,
  opts: ScopeOptions,
  withDigest: boolean,
  /** An ID that names the object by its ID only, never by a code that looks like one (oneByIdJson). */
  idOnly = false,
): Promise<{ json: Json<T>; digest?: string } | undefined> {
  const shape = `${idOnly ? 'id only' : isUuid(idOrCode) ? 'id' : 'code'} ${opts.includeDeleted ? 'all' : 'live'}${withDigest ? ' digest' : ''}`;
  const read = (keys: readonly string[]) => {
    const statement = compiledRead(db, def, shape, idOrCode, opts, withDigest, idOnly, keys.length);
    return rowsPrepared(db, { sql: statement.sql, bindings: statement.bindingsOf(orgId, keys) });
  };
  // In a transaction, its own statement (the transaction's connection, its snapshot); otherwise
  // with the reads of its kind that arrive meanwhile (coalesced-reads.ts).
  const row =
    'isTransaction' in db && db.isTransaction
      ? (await read([idOrCode]))[0]
      : await coalescedOf(db, def).load(`${shape}\u0000${orgId}`, idOrCode, async (keys) => {
          const rows = await read(keys);
          if (keys.length === 1) return [rows[0]];
          const byPosition: (Record<string, unknown> | undefined)[] = keys.map(() => undefined);
          for (const row of rows) byPosition[(row.n as number) - 1] = row;
          return byPosition;
        });
  return row ? { json: asJson<T>(row.json as string), ...(row.digest ? { digest: row.digest as string } : {}) } : undefined;
}

/**
 * Keys per statement of several single reads: a batch goes in the smallest that holds it, the rest
 * of its keys null (a null key matches nothing). Fixed sizes, because a statement's keys as an
 * array (`unnest($1)`) let PostgreSQL estimate each execution by its array's length: the plan for
 * the values given always looked cheaper than the generic one, so every execution was planned
 * anew, which cost more than the statements the batch saved.
 */
const BATCH_SIZES = [1, 2, 4, 8, 16];
export const MAX_READS_PER_STATEMENT = BATCH_SIZES[BATCH_SIZES.length - 1];

/**
 * A single read's statement, built by knex once per resource, shape and number of keys from
 * placeholder values; `bindingsOf` puts a request's own values in. One key: the read as it is.
 * More (coalesced-reads.ts): the same read once per key, each row with its key's position (`n`,
 * from 1): a VALUES list of the keys joined LATERAL to the read, whose value is the key (as an ID
 * and as a code).
 */
function compiledRead(
  db: Queryable,
  def: ResourceDef,
  shape: string,
  idOrCode: string,
  opts: ScopeOptions,
  withDigest: boolean,
  idOnly: boolean,
  keys: number,
): { sql: string; bindingsOf(orgId: string, keys: readonly string[]): unknown[] } {
  const size = BATCH_SIZES.find((n) => n >= keys) ?? MAX_READS_PER_STATEMENT;
  let shapes = compiledReads.get(def);
  if (!shapes) compiledReads.set(def, (shapes = new Map()));
  const name = `${shape} ${size}`;
  let compiled = shapes.get(name);
  if (!compiled) {
    const placeholder = isUuid(idOrCode) ? PLACEHOLDER.id : PLACEHOLDER.code;
    const keyed = size > 1 ? { id: db.raw('k.key::uuid'), code: db.raw('k.key') } : undefined;
    const one = (idOnly ? whereId : whereIdOrCode)(scoped(db, def, PLACEHOLDER_ORGANIZATION, opts), def, placeholder, keyed)
      .select(db.raw(selectList(def.columns)))
      .limit(1);
    // OFFSET 0 keeps the read a subquery of its own: flattened into the statement, its JSON was
    // built twice, once for the answer and once more for the comparison with the stored state.
    const read = db.raw('SELECT row_to_json(x)::text AS json, x.id FROM ? AS x OFFSET 0', [one]);
    // The object's stored state, when it equals the object as read (oneByIdOrCodeWithDigest).
    const digest = withDigest
      ? ' LEFT JOIN feed_objects fo ON fo.organization_id = ?::uuid AND fo.resource = ? AND fo.id = r.id AND fo.data::jsonb = r.json::jsonb'
      : '';
    const digestValues = withDigest ? [PLACEHOLDER_ORGANIZATION, statesOf.get(def)!] : [];
    const columns = `r.json${withDigest ? ', fo.digest' : ''}`;
    const keyPlaceholders = Array.from({ length: size }, (_, i) => `${PLACEHOLDER_KEY}${i}`);
    const values = keyPlaceholders.map((_, i) => `(?::text, ${i + 1})`).join(', ');
    const native = (
      size > 1
        ? db.raw(`SELECT k.n, ${columns} FROM (VALUES ${values}) AS k(key, n) CROSS JOIN LATERAL (?) AS r${digest}`, [
            ...keyPlaceholders,
            read,
            ...digestValues,
          ])
        : db.raw(`SELECT ${columns} FROM (?) AS r${digest}`, [read, ...digestValues])
    )
      .toSQL()
      .toNative();
    const slots = native.bindings.map((b) =>
      b === PLACEHOLDER_ORGANIZATION
        ? ORGANIZATION_SLOT
        : b === placeholder
          ? { key: 0 }
          : keyPlaceholders.includes(b as string)
            ? { key: keyPlaceholders.indexOf(b as string) }
            : b,
    );
    // The caller's organization must be a value of every such statement, and each key once:
    // refuse to build one where knex passed a placeholder on in another form (it would otherwise
    // run unscoped or never match).
    const keySlots = slots.filter((s): s is { key: number } => typeof s === 'object' && s !== null && 'key' in s);
    if (
      !slots.includes(ORGANIZATION_SLOT) ||
      keySlots.length < size ||
      new Set(keySlots.map((s) => s.key)).size !== size ||
      native.bindings.some(
        (b) => typeof b === 'string' && b.includes('\u0000') && b !== PLACEHOLDER_ORGANIZATION && b !== placeholder && !keyPlaceholders.includes(b),
      )
    ) {
      throw new Error(`oneByIdOrCodeJson(${def.table}): the organization or idOrCode placeholder is not a binding of the statement`);
    }
    compiled = { sql: native.sql, slots };
    shapes.set(name, compiled);
  }
  const { sql, slots } = compiled;
  return {
    sql,
    bindingsOf: (orgId, keys) =>
      slots.map((s) => (s === ORGANIZATION_SLOT ? orgId : typeof s === 'object' && s !== null && 'key' in s ? (keys[(s as { key: number }).key] ?? null) : s)),
  };
}

/**
 * Single reads outside a transaction, coalesced per database handle and resource (the kind: shape
 * and organization). One statement of a kind runs at a time: the reads that arrive meanwhile wait
 * for it, then go together (MAX_READS_PER_STATEMENT at most, then another statement). A lone read
 * waits for nothing and runs the single statement.
 */
const coalesced = new WeakMap<object, WeakMap<ResourceDef, CoalescedReads<string, Record<string, unknown> | undefined>>>();
function coalescedOf(db: Queryable, def: ResourceDef): CoalescedReads<string, Record<string, unknown> | undefined> {
  const client = (db as Knex).client as object;
  let byDef = coalesced.get(client);
  if (!byDef) coalesced.set(client, (byDef = new WeakMap()));
  let reads = byDef.get(def);
  if (!reads) byDef.set(def, (reads = new CoalescedReads({ maxInFlight: 1, maxBatch: MAX_READS_PER_STATEMENT })));
  return reads;
}

/** The ID behind `:idOrCode` in the caller's organization, or undefined. */
export async function resolveId(db: Queryable, def: ResourceDef, orgId: string, idOrCode: string, opts: ScopeOptions = {}): Promise<string | undefined> {
  const q = whereIdOrCode(scoped(db, def, orgId, opts), def, idOrCode)
    .select(`${def.alias}.id`)
    .first();
  const row = await q;
  return row?.id;
}

/**
 * The live object behind `:idOrCode` among those `within` keeps (a scope, such as one job's): an ID
 * first, then a code. `idWithin` is where an ID is looked for, when wider (IDs are unique anyway).
 */
export async function resolveIdWithin(
  db: Queryable,
  def: ResourceDef,
  orgId: string,
  idOrCode: string,
  within: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  idWithin = within,
): Promise<string | undefined> {
  const id = `${def.alias}.id`;
  if (isUuid(idOrCode)) {
    const row = await idWithin(scoped(db, def, orgId))
      .where(id, idOrCode)
      .first(id);
    if (row) return row.id;
  }
  const row = await within(scoped(db, def, orgId))
    .where(def.codeColumn!, idOrCode)
    .first(id);
  return row?.id;
}

/** Whether the ID names an object of the organization (a live one, when the resource soft-deletes). */
export async function existsById(db: Queryable, def: ResourceDef, orgId: string, id: string): Promise<boolean> {
  // What is not an ID names nothing: no need to ask.
  if (!isUuid(id)) return false;
  return !!(await whereId(scoped(db, def, orgId), def, id).first(`${def.alias}.id`));
}

export interface PageMeta {
  total: number;
  limit: number;
  offset: number;
  nextCursor?: string | null;
}

/** Page rows per streamed part: each part is one string of about this many JSON objects. */
const ROWS_PER_PART = 100;

/**
 * A bulk page of at most this many objects (items, invoice items: about 1.2 KB each) is read whole,
 * in one round trip of a prepared statement, and its connection goes back to the pool before the
 * first part is written; a larger one is streamed part by part (streamRows). Streamed, a page of
 * 500 took seven round trips of a statement planned anew each time (a portal read a row at a
 * time: the head, five parts, the end) and held its connection while the client took each part:
 * where clients outnumber the pool (32 connections against 10), requests queued behind those
 * holds, and the planning and round trips cost 20-30 % of the request's CPU (this process and
 * its database backend together) (issue 40, bench/results/2026-12-06-items-32.md). Whole, such a page is at
 * most about 600 KB per request, in parts of ROWS_PER_PART objects (young-generation strings, see
 * PART_BYTES, each let go once written); pages of 2,500, which the peak-RSS bound is measured
 * with, still stream.
 */
const WHOLE_PAGE_ROWS = 500;

/**
 * `{"meta":{"total","limit","offset"},"data":[...]}` from ONE statement: the page and the size of
 * the whole filtered set. `filtered` carries the tenancy scope and every filter; `order` sorts the
 * page (ending with a unique key); `metaLimit` is the limit to report (defaults to the page size).
 * With `cursorKey` (the raw order column), meta also carries `nextCursor`: the position after the
 * page's last row, or null when the page is not full.
 *
 * The statement's first row is the meta (total, page size, last key); the page follows in parts of
 * ROWS_PER_PART objects, streamed to the client as they arrive (see JsonStream, streamRows), or read
 * whole first when the limit is at most `wholeUpTo` (WHOLE_PAGE_ROWS unless given: `GET /releases`
 * too, whose 500-release pages streamed, their statement planned anew at every request).
 */
export async function pageWithTotalJson<T>(
  db: Queryable,
  def: ResourceDef,
  filtered: Knex.QueryBuilder,
  page: {
    limit: number;
    offset: number;
    order: (q: Knex.QueryBuilder) => void;
    metaLimit?: number;
    after?: (q: Knex.QueryBuilder) => void;
    cursorKey?: { column: string; orderBy: string; direction: Direction };
    /** An integer expression equal to the filtered set's size, cheaper than counting `filtered`. */
    total?: Knex.Raw;
    /** Read the page whole (one round trip, one prepared statement) when its limit is at most this many rows, rather than streaming it (default WHOLE_PAGE_ROWS). */
    wholeUpTo?: number;
  },
): Promise<JsonStream<{ meta: PageMeta; data: T[] }>> {
  const rows = filtered.clone();
  page.after?.(rows);
  rows.select(db.raw(selectList(def.columns)), db.raw(`${page.cursorKey?.column ?? 'NULL'} AS "__k", ${def.alias}.id AS "__i"`));
  page.order(rows);
  rows.limit(page.limit).offset(page.offset);
  const apiColumns = Object.keys(def.columns).map(quoteIdent).join(', ');
  const total = page.total ?? db.raw('(SELECT count(*) FROM ? AS c)', [filtered.clone().select(db.raw('1'))]);
  // The page is a CTE (materialized: used three times), scanned in its order for the meta's last
  // key and for the numbered parts.
  const statement = db.raw(
    `WITH page AS (?)
    SELECT 0 AS part, (?)::int AS total, (SELECT count(*)::int FROM page) AS n,
      (SELECT json_build_array(__k, __i)::text FROM page OFFSET GREATEST((SELECT count(*) FROM page) - 1, 0) LIMIT 1) AS last, NULL::text AS json
    UNION ALL (
      SELECT 1 + (rn - 1) / ${ROWS_PER_PART}, NULL, NULL, NULL, string_agg(j, ',' ORDER BY rn)
      FROM (SELECT row_to_json(x)::text AS j, row_number() OVER () AS rn FROM (SELECT ${apiColumns} FROM page) AS x) AS numbered
      GROUP BY 1 + (rn - 1) / ${ROWS_PER_PART} ORDER BY 1)`,
    [rows, total],
  );
  const parts = page.limit <= (page.wholeUpTo ?? WHOLE_PAGE_ROWS) ? rowsOf(await rowsPrepared(db, statement)) : await streamRows(db, statement);
  // The statement's first row (part 0): the page's total, its size and its last key.
  let head: { total: number; n: number; last: string | null };
  try {
    head = (await parts.next()).value as typeof head;
  } catch (err) {
    await parts.return();
    throw err;
  }
  const meta: PageMeta = { total: head.total, limit: page.metaLimit ?? page.limit, offset: page.offset };
  if (page.cursorKey) {
    const [value, id] = head.last ? (JSON.parse(head.last) as [unknown, string]) : [null, ''];
    meta.nextCursor =
      head.n === page.limit && head.n > 0 ? encodeCursor({ orderBy: page.cursorKey.orderBy, direction: page.cursorKey.direction, value, id }) : null;
  }
  // Delegates straight to the rows (already started), so closing the elements always ends them.
  const elements: AsyncIterator<string, void> = {
    next: async () => {
      const next = await parts.next();
      return next.done ? { done: true, value: undefined } : { done: false, value: next.value.json as string };
    },
    return: async () => {
      await parts.return();
      return { done: true, value: undefined };
    },
  };
  const json = new JsonStream<{ meta: PageMeta; data: T[] }>(`{"meta":${JSON.stringify(meta)},"data":[`, elements, ']}');
  json.page = meta;
  return json;
}

/** `cursor=start` begins a cursor-paged export (the first page, with `meta.nextCursor`). */
export const CURSOR_START = 'start';

/**
 * The size of an unfiltered list from its maintained count (migrations/20261124070000_item_parent_facts.ts),
 * where counting the organization's rows grew with their number. Undefined when a filter is given
 * (the caller then counts the filtered rows).
 */
function liveCountTotal(db: Queryable, def: ResourceDef, orgId: string, filter: Record<string, unknown>): Knex.Raw | undefined {
  if (!def.liveCount || Object.values(filter).some((v) => v !== undefined)) return undefined;
  return db.raw('(SELECT coalesce(sum(n), 0) FROM live_row_counts WHERE organization_id = ? AND relation = ?)', [orgId, def.liveCount]);
}

/**
 * A bulk list page (`GET /items`, `GET /invoice-items`): filters and order from the query, and
 * either `offset` or the keyset `cursor` (`start`, then each page's `meta.nextCursor`).
 */
export function bulkPageJson<T>(
  db: Queryable,
  def: ResourceDef,
  orgId: string,
  params: ListParams & { cursor?: string },
): Promise<JsonStream<{ meta: PageMeta; data: T[] }>> {
  const filtered = scoped(db, def, orgId);
  applyFilter(filtered, def.columns, params.filter);
  const column = def.columns[params.orderBy]?.raw ?? `${def.alias}.id`;
  const idColumn = `${def.alias}.id`;
  let after: ((q: Knex.QueryBuilder) => void) | undefined;
  if (params.cursor !== undefined) {
    if (params.offset !== 0) throw invalidField('query.offset', 'cursor', 'must be 0 (or left out) when a cursor is given');
    if (params.cursor !== CURSOR_START) {
      const cursor = decodeCursor(params.cursor, params.orderBy, params.direction);
      after = (q) => whereAfter(q, column, idColumn, cursor);
    }
  }
  return pageWithTotalJson<T>(db, def, filtered, {
    limit: params.limit,
    offset: params.offset,
    after,
    order: (q) => applyOrder(q, def.columns, params.orderBy, params.direction, idColumn),
    // Offset paging answers exactly the spec's meta; cursor paging adds nextCursor.
    cursorKey: params.cursor === undefined ? undefined : { column, orderBy: params.orderBy, direction: params.direction },
    total: liveCountTotal(db, def, orgId, params.filter),
  });
}
