import type { Knex } from 'knex';
import { badRequest } from '../errors';
import { Columns, isUuid } from './columns';

/**
 * One mechanism for every list: filter, order and page a knex query from the validated query
 * string. Which fields and operators a list accepts is decided by its OpenAPI `filter` and
 * `orderBy` parameters (request validation has already rejected anything else); this turns the
 * accepted ones into SQL through the resource's column map.
 */
export type Direction = 'ASC' | 'DESC';

export interface ListParams {
  limit: number;
  offset: number;
  orderBy: string;
  direction: Direction;
  filter: Record<string, unknown>;
}

export const OPERATORS = ['not_in', 'in', 'not', 'lte', 'lt', 'gte', 'gt', 'contains', 'starts_with', 'ends_with'] as const;
export type Operator = (typeof OPERATORS)[number] | 'eq';

/** `code_starts_with` -> ['code', 'starts_with']; `code` -> ['code', 'eq']. Field names are camelCase. */
export function splitFilterKey(key: string): [string, Operator] {
  for (const op of OPERATORS) {
    const suffix = '_' + op;
    if (key.endsWith(suffix) && key.length > suffix.length) return [key.slice(0, -suffix.length), op];
  }
  return [key, 'eq'];
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c);

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

export function applyFilter(q: Knex.QueryBuilder, columns: Columns, filter: Record<string, unknown>, skip: string[] = []): void {
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || skip.includes(key)) continue;
    const [field, op] = splitFilterKey(key);
    const column = columns[field];
    if (!column?.raw) throw badRequest([{ message: `query.filter.${key}: unknown filter field ${field}`, field: `query.filter.${key}`, rule: 'filter' }]);
    const sql = column.raw;
    if (column.uuid) {
      // IDs are opaque strings to clients: a value that cannot be an ID matches nothing.
      const ids = asList(value).map(String);
      const valid = ids.filter(isUuid);
      if (op === 'eq') q.whereRaw(valid.length ? `${sql} = ?` : 'false', valid.slice(0, 1));
      else if (op === 'not') {
        if (valid.length) q.whereRaw(`${sql} IS DISTINCT FROM ?`, [valid[0]]);
      } else if (op === 'in') q.whereRaw(valid.length ? `${sql} = ANY(?::uuid[])` : 'false', valid.length ? [valid] : []);
      else if (op === 'not_in') {
        if (valid.length) q.whereRaw(`NOT (${sql} = ANY(?::uuid[]))`, [valid]);
      }
      continue;
    }
    switch (op) {
      case 'eq':
        q.whereRaw(`${sql} = ?`, [value as Knex.Value]);
        break;
      case 'not':
        q.whereRaw(`${sql} IS DISTINCT FROM ?`, [value as Knex.Value]);
        break;
      // A list is one array parameter: its length is not a new statement shape (prepared.ts).
      case 'in':
        q.whereRaw(`${sql} = ANY(?)`, [asList(value) as Knex.Value]);
        break;
      case 'not_in':
        q.whereRaw(`(${sql} <> ALL(?) OR ${sql} IS NULL)`, [asList(value) as Knex.Value]);
        break;
      case 'lt':
        q.whereRaw(`${sql} < ?`, [value as Knex.Value]);
        break;
      case 'lte':
        q.whereRaw(`${sql} <= ?`, [value as Knex.Value]);
        break;
      case 'gt':
        q.whereRaw(`${sql} > ?`, [value as Knex.Value]);
        break;
      case 'gte':
        q.whereRaw(`${sql} >= ?`, [value as Knex.Value]);
        break;
      case 'contains':
        q.whereRaw(`${sql}::text ILIKE ?`, ['%' + escapeLike(String(value)) + '%']);
        break;
      case 'starts_with':
        q.whereRaw(`${sql}::text ILIKE ?`, [escapeLike(String(value)) + '%']);
        break;
      case 'ends_with':
        q.whereRaw(`${sql}::text ILIKE ?`, ['%' + escapeLike(String(value))]);
        break;
    }
  }
}

/** Orders by the requested field, then by id so that pages are stable. */
export function applyOrder(q: Knex.QueryBuilder, columns: Columns, orderBy: string, direction: Direction, idColumn: string): void {
  const column = columns[orderBy];
  if (!column?.raw) throw badRequest([{ message: `query.orderBy: cannot order by ${orderBy}`, field: 'query.orderBy', rule: 'enum' }]);
  const dir = direction === 'DESC' ? 'DESC' : 'ASC';
  q.orderByRaw(`${column.raw} ${dir}`);
  if (column.raw !== idColumn) q.orderByRaw(`${idColumn} ${dir}`);
}

export function applyList(q: Knex.QueryBuilder, columns: Columns, p: ListParams, idColumn: string, skipFilters: string[] = []): void {
  applyFilter(q, columns, p.filter, skipFilters);
  applyOrder(q, columns, p.orderBy, p.direction, idColumn);
  q.limit(p.limit).offset(p.offset);
}
