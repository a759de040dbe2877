import { ApiError, type Violation } from '../errors';
import type { Queryable } from './knex';
import { rowsPrepared } from './prepared';
import { quoteIdent, selectList } from './columns';
import { Json, ROWS_OF_X_AS_JSON_ARRAY, asJson } from './json';
import type { ResourceDef } from './resource';

/**
 * Batches: size checks before anything is examined, every rejected position reported at once in
 * the spec's format (one error whose message has a line `Position <n>: ...` per rejected element,
 * zero-based, whatever rejected it: the contract's schema or the batch's own checks), and a
 * set-based upsert that writes the whole batch in one statement.
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

/**
 * The elements of a batch's list that the contract's schema rejected, by position, with their
 * violations (fields inside the element). src/http/backend.ts hands them to the operation instead
 * of answering, so that one 400 names them together with the batch's own rejections.
 */
export type RejectedElements = ReadonlyMap<number, readonly Violation[]>;

export const NONE_REJECTED: RejectedElements = new Map();

/** An element of a batch's list and its (zero-based) position in it. */
export interface Positioned<T> {
  input: T;
  position: number;
}

/**
 * The start of a batch's element checks, after its request-level ones: every position the schema
 * rejected, in `errors` with its violations, and the elements it accepted, with their positions,
 * for the batch's own checks (references, duplicates in the batch). A rejected element is not
 * examined further: it may not even be an object. The batch throws `errors` once it has checked
 * the accepted ones, so whatever it writes after that has no rejected element.
 */
export function checkElements<T>(inputs: T[], rejected: RejectedElements): { errors: PositionErrors; accepted: Positioned<T>[] } {
  const errors = new PositionErrors();
  for (const [position, violations] of rejected) for (const v of violations) errors.addViolation(position, v);
  return { errors, accepted: inputs.flatMap((input, position) => (rejected.has(position) ? [] : [{ input, position }])) };
}

/** Collects `Position <n>: ...` lines; throws one 400 with all of them. */
export class PositionErrors {
  private readonly lines = new Map<number, string[]>();

  add(position: number, message: string): void {
    const list = this.lines.get(position) ?? [];
    list.push(message);
    this.lines.set(position, list);
  }

  /** A broken rule: `<field>: <message> (rule <rule>)` (without the field for the element itself). */
  addViolation(position: number, { field, rule, message }: Violation): void {
    this.add(position, `${field ? `${field}: ` : ''}${message} (rule ${rule})`);
  }

  has(position: number): boolean {
    return this.lines.has(position);
  }

  get size(): number {
    return this.lines.size;
  }

  /** Marks every position whose key was already seen at an earlier position (keys in position order). */
  addDuplicates(keys: { position: number; key: string | undefined }[], describe: (key: string) => string): void {
    const first = new Map<string, number>();
    for (const { position, key } of keys) {
      if (key === undefined) continue;
      const seen = first.get(key);
      if (seen === undefined) first.set(key, position);
      else this.add(position, `${describe(key)} appears more than once in the batch (first at position ${seen})`);
    }
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
  /**
   * Conflict columns that may be null (a global phase's `job_id`): matched with IS NOT DISTINCT
   * FROM. Every other key column is matched with `=`, which PostgreSQL can hash or look up in the
   * key's index; IS NOT DISTINCT FROM can do neither and compared every input row with every row
   * of the table.
   */
  nullableKeys?: string[];
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
 *
 * A row the upsert would leave as it is stays untouched, `updated_at` included: a write that
 * changes nothing is nothing (src/feed/unchanged.ts; the feed then drops its entry). Its returned
 * row is read back in the same statement, with `xmax` '1' (not inserted).
 */
export async function upsertRecordset<R = Record<string, unknown>>(
  db: Queryable,
  table: string,
  input: Record<string, unknown>[],
  opts: UpsertOptions,
): Promise<R[]> {
  if (!input.length) return [];
  const { sql, rows, untouched } = upsertStatement(table, input, opts);
  const q = quoteIdent;
  const pick = (c: string, from: string) => (c === 'xmax' ? `${from === 'w' ? 'w.xmax::text' : "'1'"} AS xmax` : `${from}.${q(c)}`);
  const statement = `WITH ${sql} RETURNING *, xmax)
    SELECT ${opts.returning.map((c) => pick(c, 'w')).join(', ')} FROM upserted w
    UNION ALL SELECT ${opts.returning.map((c) => pick(c, 't')).join(', ')} FROM ${untouched}`;
  return allWritten((await rowsPrepared(db, db.raw(statement, [JSON.stringify(rows)]))) as R[], rows.length);
}

/**
 * Every row of the batch is written or read back. A row a concurrent transaction inserted after
 * this statement's snapshot was taken conflicts (the upsert waits for it, then finds it unchanged)
 * but is not visible to the read back: the transaction is run again (src/db/retry.ts), as for a
 * serialization failure, and then sees it.
 */
function allWritten<R>(written: R[], expected: number): R[] {
  if (written.length === expected) return written;
  throw Object.assign(new Error('a row of the batch was inserted concurrently'), { code: '40001' });
}

/**
 * The statement upsertRecordset runs, as CTEs `input` and `upserted` (left open for its RETURNING),
 * and `untouched`: the FROM clause of the existing rows the upsert left as they were (alias `t`).
 */
function upsertStatement(table: string, input: Record<string, unknown>[], opts: UpsertOptions) {
  const rows = inLockOrder(input, opts.conflict);
  const columns = Object.keys(rows[0]);
  const q = quoteIdent;
  const keep = new Set(opts.keepWhenNull ?? []);
  const value = (c: string) => (keep.has(c) ? `COALESCE(EXCLUDED.${q(c)}, ${q(table)}.${q(c)})` : `EXCLUDED.${q(c)}`);
  const set = opts.update
    .map((c) => `${q(c)} = ${value(c)}`)
    .concat(['"updated_at" = now()'])
    .join(', ');
  const changed = `ROW(${opts.update.map((c) => `${q(table)}.${q(c)}`).join(', ')}) IS DISTINCT FROM ROW(${opts.update.map(value).join(', ')})`;
  const sql = `input AS (SELECT * FROM json_populate_recordset(NULL::${q(table)}, ?::json)),
    upserted AS (INSERT INTO ${q(table)} (${columns.map(q).join(', ')})
    SELECT ${columns.map(q).join(', ')} FROM input
    ON CONFLICT ${opts.conflict} DO UPDATE SET ${set} WHERE ${changed}`;
  // The conflict target's columns and predicate (`(organization_id, code) WHERE deleted_at IS NULL`) find the rows left alone.
  const keys = conflictColumns(opts.conflict).filter((c) => columns.includes(c));
  const predicate = opts.conflict.replace(/^\s*\([^)]*\)/, '').trim();
  const nullable = new Set(opts.nullableKeys ?? []);
  const same = (k: string) => (nullable.has(k) ? `i.${q(k)} IS NOT DISTINCT FROM t.${q(k)}` : `i.${q(k)} = t.${q(k)}`);
  const untouched = `(SELECT * FROM ${q(table)} ${predicate}) t
    WHERE EXISTS (SELECT 1 FROM input i WHERE ${keys.map(same).join(' AND ')})
      AND t.id NOT IN (SELECT id FROM upserted)`;
  return { sql, rows, untouched };
}

/**
 * upsertRecordset and the reply in one statement: the written rows as `def` represents them, in
 * the order of `order` (values of the text column `key`, which tells the input rows apart). For a
 * batch whose reply reads nothing that a later statement of the batch writes: the reply is built
 * from the rows as the upsert leaves them (its RETURNING, and the rows it left untouched), and the
 * rest of `def`'s columns read other tables as they were before the statement. Saves reading the
 * batch back by id.
 */
export async function upsertRecordsetReplying<R extends { id: string }, T>(
  db: Queryable,
  table: string,
  input: Record<string, unknown>[],
  opts: UpsertOptions & { reply: { def: ResourceDef; key: string; order: string[] } },
): Promise<{ rows: R[]; reply: Json<T[]> }> {
  const { sql, rows, untouched } = upsertStatement(table, input, opts);
  const { def, key, order } = opts.reply;
  const q = quoteIdent;
  const statement = `WITH ${sql} RETURNING *, xmax),
      written AS (SELECT * FROM upserted UNION ALL SELECT t.*, '1'::xid AS xmax FROM ${untouched})
    SELECT (SELECT json_agg(json_build_object(${opts.returning.map((c) => `'${c}', ${q(c)}`).join(', ')}))::text FROM written) AS rows,
      (SELECT ${ROWS_OF_X_AS_JSON_ARRAY} FROM (
        SELECT ${selectList(def.columns)} FROM written ${def.alias}
        JOIN unnest(?::text[]) WITH ORDINALITY AS wanted(${q(key)}, position) ON wanted.${q(key)} = ${def.alias}.${q(key)}
        ORDER BY wanted.position) x) AS json`;
  const [row] = (await rowsPrepared(db, db.raw(statement, [JSON.stringify(rows), order]))) as { rows: string | null; json: string }[];
  const written = allWritten(row.rows === null ? [] : (JSON.parse(row.rows) as R[]), rows.length);
  return { rows: written, reply: asJson<T[]>(row.json) };
}

/** What a batch upsert reports besides its reply (the change feed's ChangeCollector records it). */
export interface BatchOutcome {
  /** Ids the batch inserted rather than updated. */
  markCreated(ids: Iterable<string>): void;
  /** Ids of existing rows whose name the batch changed (a batch that knows the previous names). */
  markRenamed(ids: Iterable<string>): void;
}

/** For a caller that records no outcome. */
export const UNRECORDED: BatchOutcome = { markCreated: () => undefined, markRenamed: () => undefined };

/**
 * The ids an upsert inserted rather than updated, given `xmax` in its `returning`: a row version
 * the statement inserted has xmax 0, one it updated carries the statement's own lock.
 */
export const insertedIds = (rows: { id: string; xmax: string | number }[]): string[] => rows.filter((r) => String(r.xmax) === '0').map((r) => r.id);

/**
 * The ids of rows an upsert updated (see insertedIds) with another name than before, by code:
 * `before` holds the names the batch read (and locked) first, `given` the names it wrote. A row it
 * had not read (inserted by another transaction in between) counts as renamed: it cannot tell.
 */
export const renamedIds = (
  rows: { id: string; code: string; xmax: string | number }[],
  before: ReadonlyMap<string, string>,
  given: ReadonlyMap<string, string>,
): string[] => rows.filter((r) => String(r.xmax) !== '0' && before.get(r.code) !== given.get(r.code)).map((r) => r.id);
