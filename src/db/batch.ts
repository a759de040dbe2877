import { ApiError } from '../errors';
import type { Queryable } from './knex';
import { rowsPrepared } from './prepared';
import { quoteIdent } from './columns';

/**
 * Batches: size checks before anything is examined, every rejected position reported at once in
 * the spec's format (one error whose message has a line `Position <n>: ...` per rejected element,
 * zero-based), and a set-based upsert that writes the whole batch in one statement.
 */
export const BATCH_LIMIT = 1000;

export function batchProblem(message: string): ApiError {
  return new ApiError(
    400,
    'validation-failed',
    'Validation failed',
    [{ message }],
    {},
    message.split('\n').length > 1 ? `${message.split('\n').length} elements were rejected.` : message,
  );
}

/** Request-level checks (the spec's exact messages), raised before any element is examined. */
export function checkBatchSize(list: unknown[]): void {
  if (list.length === 0) throw batchProblem('Invalid input, list cannot be empty');
  if (list.length > BATCH_LIMIT) throw batchProblem(`Invalid input, list cannot be greater than ${BATCH_LIMIT}`);
}

/** Collects `Position <n>: ...` lines; throws one 400 with all of them. */
export class PositionErrors {
  private readonly lines = new Map<number, string[]>();

  add(position: number, message: string): void {
    const list = this.lines.get(position) ?? [];
    list.push(message);
    this.lines.set(position, list);
  }

  has(position: number): boolean {
    return this.lines.has(position);
  }

  get size(): number {
    return this.lines.size;
  }

  /** Marks every position whose key was already seen earlier in the batch. */
  addDuplicates(keys: (string | undefined)[], describe: (key: string) => string): void {
    const first = new Map<string, number>();
    keys.forEach((key, i) => {
      if (key === undefined) return;
      const seen = first.get(key);
      if (seen === undefined) first.set(key, i);
      else this.add(i, `${describe(key)} appears more than once in the batch (first at position ${seen})`);
    });
  }

  throwIfAny(): void {
    if (!this.lines.size) return;
    const message = [...this.lines.entries()]
      .sort(([a], [b]) => a - b)
      .map(([i, msgs]) => `Position ${i}: ${msgs.join('; ')}`)
      .join('\n');
    throw batchProblem(message);
  }
}

export interface UpsertOptions {
  /** The ON CONFLICT target, e.g. `(organization_id, code) WHERE deleted_at IS NULL`. */
  conflict: string;
  /** Columns overwritten on conflict. */
  update: string[];
  /** Of those, columns that keep their stored value when the input gives null/omits them. */
  keepWhenNull?: string[];
  returning: string[];
}

/** The columns of an ON CONFLICT target, e.g. `(organization_id, code) WHERE ...` -> organization_id, code. */
function conflictColumns(conflict: string): string[] {
  const m = /^\s*\(([^)]*)\)/.exec(conflict);
  return m ? m[1].split(',').map((c) => c.trim().replace(/^"|"$/g, '')) : [];
}

const keyText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The rows sorted by their conflict key. PostgreSQL locks the rows an upsert updates (and the
 * index entries it inserts) one by one in the order the statement meets them: two batches naming
 * the same keys in opposite orders would each hold a lock the other waits for, a deadlock.
 * Sorted, every batch takes its locks in the same order, and the second simply waits for the first.
 */
export function inLockOrder<T extends Record<string, unknown>>(rows: T[], conflict: string): T[] {
  const keys = conflictColumns(conflict).filter((c) => c in rows[0]);
  if (!keys.length) return rows;
  const compare = (a: T, b: T) => {
    for (const k of keys) {
      const x = keyText(a[k]);
      const y = keyText(b[k]);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  return [...rows].sort(compare);
}

/**
 * Inserts or updates every row in one statement (in lock order, see inLockOrder): the rows travel as one JSON parameter and
 * json_populate_recordset types them by the table's own columns (no 65,535-parameter limit, no
 * per-row round trip). Rows must all carry the same keys (snake_case column names); columns not
 * given take their defaults. Duplicate conflict keys must be rejected before calling this. The
 * returned rows follow lock order, not input order: callers map them back by key.
 */
export async function upsertRecordset<R = Record<string, unknown>>(
  db: Queryable,
  table: string,
  input: Record<string, unknown>[],
  opts: UpsertOptions,
): Promise<R[]> {
  if (!input.length) return [];
  const rows = inLockOrder(input, opts.conflict);
  const columns = Object.keys(rows[0]);
  const q = quoteIdent;
  const keep = new Set(opts.keepWhenNull ?? []);
  const set = opts.update
    .map((c) => (keep.has(c) ? `${q(c)} = COALESCE(EXCLUDED.${q(c)}, ${q(table)}.${q(c)})` : `${q(c)} = EXCLUDED.${q(c)}`))
    .concat(['"updated_at" = now()'])
    .join(', ');
  const sql = `INSERT INTO ${q(table)} (${columns.map(q).join(', ')})
    SELECT ${columns.map(q).join(', ')} FROM json_populate_recordset(NULL::${q(table)}, ?::json)
    ON CONFLICT ${opts.conflict} DO UPDATE SET ${set}
    RETURNING ${opts.returning.map(q).join(', ')}`;
  return (await rowsPrepared(db, db.raw(sql, [JSON.stringify(rows)]))) as R[];
}

/**
 * The ids an upsert inserted rather than updated, given `xmax` in its `returning`: a row version
 * the statement inserted has xmax 0, one it updated carries the statement's own lock.
 */
export const insertedIds = (rows: { id: string; xmax: string | number }[]): string[] => rows.filter((r) => String(r.xmax) === '0').map((r) => r.id);
