import type { Knex } from 'knex';
import type { Request } from 'express';
import type { Operation } from 'openapi-backend';
import { canonicalForm, type FormOf } from '../db/object-digest';
import { ApiError, invalidField } from '../errors';
import { repeatedHeader } from './raw-headers';
import type { OperationId } from './handler';

/**
 * Conditional requests (RFC 9110 13), one mechanism for every operation, driven by the contract:
 * - an operation whose success response declares an `ETag` header answers one: `"<objectDigest>"`
 *   of its body, the object as its single read returns it (strong: equal digests are equal objects,
 *   so a write that changes nothing leaves the tag as it was);
 * - an operation that declares `If-None-Match` answers 304 without a body when a tag matches
 *   (weak comparison) or the header is `*`;
 * - an operation that declares `If-Match` evaluates it inside its write transaction, before the
 *   handler runs, against the object as its read returns it, while holding the object's row lock
 *   (SELECT ... FOR UPDATE): every writer of the row waits for it, so of concurrent writes with the
 *   same tag one succeeds and the others see the new object and get 412. Which object and table an
 *   operation writes is said by the resources (each resource's declarations, src/resources/declarations.ts).
 * They are steps of an operation (src/http/operation.ts).
 */

/** The object a single-object write changes: its table (for the row lock) and how to read it. */
export interface ObjectOfWrite {
  table: string;
  /**
   * The read operation whose 200 body is the object, or a read of its own; either gets the write's
   * path parameters as they are (a path parameter has one name wherever it names the same object).
   */
  read: OperationId | ((db: Knex.Transaction, orgId: string, params: Record<string, string>) => Promise<unknown>);
}
export type ObjectsOfWrites = Partial<Record<OperationId, ObjectOfWrite>>;

/** The object a write changes: its table and its read. */
export const objectOfWrite = (table: string, read: ObjectOfWrite['read']): ObjectOfWrite => ({ table, read });

export interface Conditions {
  /** Statuses whose answer carries the ETag. */
  etagStatuses: ReadonlySet<number>;
  ifMatch: boolean;
  ifNoneMatch: boolean;
}

const declaresHeader = (operation: Operation, name: string) =>
  (operation.parameters ?? []).some((p) => 'in' in p && p.in === 'header' && String(p.name).toLowerCase() === name);

/** What the contract declares for the operation (read once, at start). */
export function conditionsOf(operation: Operation): Conditions {
  const etagStatuses = new Set<number>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (status !== '304' && (response as { headers?: Record<string, unknown> } | undefined)?.headers?.ETag) etagStatuses.add(Number(status));
  }
  return { etagStatuses, ifMatch: declaresHeader(operation, 'if-match'), ifNoneMatch: declaresHeader(operation, 'if-none-match') };
}

/** The entity tag of an object: its digest (`formOf`: the write's own canonicalForm, which puts each object in form once). */
export const etagOf = (object: unknown, formOf: FormOf = canonicalForm): string => `"${formOf(object).digest}"`;

/**
 * The entity tag of an object at an older API version (src/versions/): its tag at the newest
 * version with `@<version>` inside the quotes. The same object has one representation per version,
 * so one strong tag per version (RFC 9110 8.8.3), derived without putting the older shape in
 * canonical form again; a tag of one version never matches at another (If-Match 412, no 304).
 */
export const etagAtVersion =
  (version: string) =>
  (tag: string): string =>
    tag.endsWith('"') ? `${tag.slice(0, -1)}@${version}"` : tag;

const opaque = (tag: string) => tag.replace(/^W\//, '');

/** The header's entity tags (`*` alone as itself); undefined when absent. A malformed list is a 400. */
function tagsOf(req: Request, name: 'if-match' | 'if-none-match'): string[] | '*' | undefined {
  const raw = req.headers[name];
  if (raw === undefined) return undefined;
  const field = `header.${name === 'if-match' ? 'If-Match' : 'If-None-Match'}`;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  if (value === '*' && !repeatedHeader(req, name)) return '*';
  const tags = value.split(',').map((t) => t.trim());
  // RFC 9110 13.1.1: "*" or a list of entity tags, not both.
  if (tags.includes('*')) throw invalidField(field, 'format', 'is "*" alone or a list of entity tags, not both');
  if (!tags.every((t) => /^(W\/)?"[\x21\x23-\x7e]*"$/.test(t))) throw invalidField(field, 'format', 'is a list of entity tags ("...", as an ETag gives them)');
  return tags;
}

/** RFC 9110 13.1.2: true when the client's copy is current (304). Weak comparison. */
export function notModified(req: Request, etag: string): boolean {
  const tags = tagsOf(req, 'if-none-match');
  if (tags === undefined) return false;
  return tags === '*' || tags.some((t) => opaque(t) === opaque(etag));
}

/** The If-Match header, checked for form before anything is read; undefined when absent. */
export const ifMatchOf = (req: Request) => tagsOf(req, 'if-match');

/**
 * Evaluates If-Match for a write: reads the object, takes its row lock, reads it again (what the
 * lock holder before us committed) and compares strongly. An object that does not exist is left
 * to the handler (its own 404). Throws the 412.
 */
export async function checkIfMatch(
  trx: Knex.Transaction,
  orgId: string,
  tags: string[] | '*',
  object: ObjectOfWrite,
  read: () => Promise<unknown>,
  /** The tag at the request's API version, for an older one (etagAtVersion). */
  tagAt?: (tag: string) => string,
): Promise<void> {
  const first = (await read()) as { id?: string } | undefined;
  if (!first?.id) return;
  await trx.raw('SELECT 1 FROM ?? WHERE organization_id = ? AND id = ? FOR UPDATE', [object.table, orgId, first.id]);
  const current = await read();
  if (current === undefined || tags === '*') return;
  const etag = tagAt ? tagAt(etagOf(current)) : etagOf(current);
  if (tags.includes(etag)) return;
  const message = `header.If-Match: the object changed since ${tags.join(', ')}; its current ETag is ${etag}`;
  throw new ApiError(412, 'precondition-failed', 'Precondition failed', [{ message, field: 'header.If-Match', rule: 'current-etag' }]);
}

/**
 * The object a write changes, as `object` reads it: its own read, or the read operation's 200 body
 * through `readOperation` (undefined for its 404). `valueOf` turns a reply body into a value.
 */
export async function readObjectOfWrite(
  object: ObjectOfWrite,
  db: Knex.Transaction,
  orgId: string,
  params: Record<string, string>,
  readOperation: (id: OperationId) => Promise<{ body?: unknown }>,
  valueOf: (body: unknown) => unknown,
): Promise<unknown> {
  if (typeof object.read === 'function') return valueOf(await object.read(db, orgId, params));
  try {
    return valueOf((await readOperation(object.read)).body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}
