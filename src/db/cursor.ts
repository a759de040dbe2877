import type { Knex } from 'knex';
import { invalidField } from '../errors';
import type { Direction } from './list';

/**
 * Opaque keyset cursors for bulk lists: the page after a cursor is found with an index range
 * condition on (order column, id), so a full export costs the same per page at any depth
 * (OFFSET would scan and discard every earlier row). The cursor carries the order it was made
 * for; filters must stay the same between pages (they are the client's part of the position).
 */
export interface Cursor {
  orderBy: string;
  direction: Direction;
  /** The last row's order value (as PostgreSQL wrote it to JSON) and id. */
  value: unknown;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.orderBy, c.direction, c.value, c.id])).toString('base64url');
}

export function decodeCursor(text: string, orderBy: string, direction: Direction): Cursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 4 ||
    typeof parts[0] !== 'string' ||
    typeof parts[3] !== 'string' ||
    (parts[1] !== 'ASC' && parts[1] !== 'DESC')
  ) {
    throw invalidField('query.cursor', 'cursor', 'is not a cursor returned by this list (meta.nextCursor)');
  }
  if (parts[0] !== orderBy || parts[1] !== direction) {
    throw invalidField('query.cursor', 'cursor', `was made for orderBy=${parts[0]}&direction=${parts[1]}; repeat the same orderBy and direction`);
  }
  return { orderBy, direction, value: parts[2], id: parts[3] };
}

/**
 * Rows after the cursor in `ORDER BY col dir, id dir` (PostgreSQL puts NULLs last ascending and
 * first descending). A row comparison keeps the common case (a NOT NULL column) one index range.
 */
export function whereAfter(q: Knex.QueryBuilder, column: string, idColumn: string, c: Cursor): void {
  const { value, id } = c;
  if (c.direction === 'ASC') {
    if (value === null) q.whereRaw(`(${column} IS NULL AND ${idColumn} > ?)`, [id]);
    else q.whereRaw(`((${column}, ${idColumn}) > (?, ?) OR ${column} IS NULL)`, [value as Knex.Value, id]);
  } else if (value === null) {
    q.whereRaw(`((${column} IS NULL AND ${idColumn} < ?) OR ${column} IS NOT NULL)`, [id]);
  } else {
    q.whereRaw(`(${column}, ${idColumn}) < (?, ?)`, [value as Knex.Value, id]);
  }
}
