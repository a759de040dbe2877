/**
 * How a resource's API fields map to SQL. Reads build their JSON in PostgreSQL (row_to_json over
 * these expressions), so a page is one statement and node never parses a row or a date.
 *
 * `out` is the SQL that produces the field's JSON value; `raw` is the column that filters and
 * orderings compare (for timestamps: the timestamptz, not its formatted text). A field without
 * `raw` can be returned but not filtered or sorted.
 */
export interface Column {
  out: string;
  raw?: string;
  /** ids compare as uuid: a value that is not a uuid matches nothing instead of failing. */
  uuid?: boolean;
}

export type Columns = Record<string, Column>;

/** A plain column, returned and compared as is. */
export const col = (sql: string): Column => ({ out: sql, raw: sql });
/** A uuid column (an ID field). */
export const idCol = (sql: string): Column => ({ out: sql, raw: sql, uuid: true });
/** A timestamptz column, returned as ISO 8601 UTC with milliseconds. */
export const tsCol = (sql: string): Column => ({ out: `api_ts(${sql})`, raw: sql });
/** A computed value (nested object, aggregate): returned only. */
export const expr = (sql: string): Column => ({ out: sql });
/** A computed value that can also be filtered and sorted on `raw`. */
export const exprOn = (out: string, raw: string): Column => ({ out, raw });

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The SELECT list producing one JSON object per row, keys in the order given. */
const selectLists = new WeakMap<Columns, string>();
export function selectList(columns: Columns): string {
  let list = selectLists.get(columns);
  if (list === undefined) {
    list = Object.entries(columns)
      .map(([field, c]) => `${c.out} AS ${quoteIdent(field)}`)
      .join(', ');
    selectLists.set(columns, list);
  }
  return list;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v);
