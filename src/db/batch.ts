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
  const { sql, rows } = upsertStatement(table, input, opts);
  return (await rowsPrepared(db, db.raw(`${sql} RETURNING ${opts.returning.map(quoteIdent).join(', ')}`, [JSON.stringify(rows)]))) as R[];
}

/** The statement upsertRecordset runs, without its RETURNING clause. */
function upsertStatement(table: string, input: Record<string, unknown>[], opts: UpsertOptions) {
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
    ON CONFLICT ${opts.conflict} DO UPDATE SET ${set}`;
  return { sql, rows };
}

/**
 * upsertRecordset and the reply in one statement: the written rows as `def` represents them, in
 * the order of `order` (values of the text column `key`, which tells the input rows apart). For a
 * batch whose reply reads nothing that a later statement of the batch writes: the reply is built
 * from the rows as the upsert leaves them (its RETURNING), and the rest of `def`'s columns read
 * other tables as they were before the statement. Saves reading the batch back by id.
 */
export async function upsertRecordsetReplying<R extends { id: string }, T>(
  db: Queryable,
  table: string,
  input: Record<string, unknown>[],
  opts: UpsertOptions & { reply: { def: ResourceDef; key: string; order: string[] } },
): Promise<{ rows: R[]; reply: Json<T[]> }> {
  const { sql, rows } = upsertStatement(table, input, opts);
  const { def, key, order } = opts.reply;
  const q = quoteIdent;
  const statement = `WITH written AS (${sql} RETURNING *, xmax)
    SELECT (SELECT json_agg(json_build_object(${opts.returning.map((c) => `'${c}', ${q(c)}`).join(', ')}))::text FROM written) AS rows,
      (SELECT ${ROWS_OF_X_AS_JSON_ARRAY} FROM (
        SELECT ${selectList(def.columns)} FROM written ${def.alias}
        JOIN unnest(?::text[]) WITH ORDINALITY AS wanted(${q(key)}, position) ON wanted.${q(key)} = ${def.alias}.${q(key)}
        ORDER BY wanted.position) x) AS json`;
  const [row] = (await rowsPrepared(db, db.raw(statement, [JSON.stringify(rows), order]))) as { rows: string | null; json: string }[];
  return { rows: row.rows === null ? [] : (JSON.parse(row.rows) as R[]), reply: asJson<T[]>(row.json) };
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
