import type { Knex } from 'knex';
import type { Request } from 'express';
import type { Operation } from 'openapi-backend';
import { objectDigest } from '../db/object-digest';
import { ApiError, invalidField } from '../errors';
import { JsonParts } from '../db/json';
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
 *   operation writes is said by the resources (OBJECT_WRITES, src/resources/object-writes.ts).
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

export interface Conditions {
  /** Statuses whose answer carries the ETag. */
  etagStatuses: ReadonlySet<number>;
  ifMatch: boolean;
  ifNoneMatch: boolean;
}

const declaresHeader = (operation: Operation, name: string) =>
  (operation.parameters ?? []).some((p: any) => p.in === 'header' && String(p.name).toLowerCase() === name);

/** What the contract declares for the operation (read once, at start). */
export function conditionsOf(operation: Operation): Conditions {
  const etagStatuses = new Set<number>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (status !== '304' && (response as any)?.headers?.ETag) etagStatuses.add(Number(status));
  }
  return { etagStatuses, ifMatch: declaresHeader(operation, 'if-match'), ifNoneMatch: declaresHeader(operation, 'if-none-match') };
}

/** A reply body as a value: JSON built by PostgreSQL arrives as text or parts. */
export const bodyValue = (body: unknown): unknown => (typeof body === 'string' ? JSON.parse(body) : body instanceof JsonParts ? JSON.parse(body.text()) : body);

export const etagOf = (object: unknown): string => `"${objectDigest(object)}"`;

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
): Promise<void> {
  const first = (await read()) as { id?: string } | undefined;
  if (!first?.id) return;
  await trx.raw('SELECT 1 FROM ?? WHERE organization_id = ? AND id = ? FOR UPDATE', [object.table, orgId, first.id]);
  const current = await read();
  if (current === undefined || tags === '*') return;
  const etag = etagOf(current);
  if (tags.includes(etag)) return;
  const message = `header.If-Match: the object changed since ${tags.join(', ')}; its current ETag is ${etag}`;
  throw new ApiError(412, 'precondition-failed', 'Precondition failed', [{ message, field: 'header.If-Match', rule: 'current-etag' }]);
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
type AnyHandler = (ctx: any) => Promise<Reply>;

/**
 * The step around every operation's handler (src/http/backend.ts): If-Match before a write's
 * handler (inside its transaction and its Idempotency-Key, so a replay is replayed, not refused),
 * ETag and If-None-Match after. `ctxOf` builds a handler context on the request's database handle.
 */
export function conditionalRequests(operationOf: (id: OperationId) => Operation | undefined, handlers: Record<string, AnyHandler>, objects: ObjectsOfWrites) {
  const known = new Map<string, Conditions>();
  const conditions = (id: OperationId) => {
    let found = known.get(id);
    if (!found) {
      const operation = operationOf(id);
      found = operation ? conditionsOf(operation) : { etagStatuses: new Set(), ifMatch: false, ifNoneMatch: false };
      if (found.ifMatch && !objects[id]) throw new Error(`${id} declares If-Match but OBJECT_WRITES does not say which object it writes`);
      known.set(id, found);
    }
    return found;
  };

  /** Every operation that declares If-Match must say which object it writes (checked at start). */
  const check = (ids: OperationId[]) => ids.forEach(conditions);

  async function around(id: OperationId, ctx: any, run: () => Promise<Reply>): Promise<Reply> {
    const c = conditions(id);
    const req: Request = ctx.req;
    if (c.ifMatch) {
      const tags = ifMatchOf(req);
      const object = objects[id]!;
      if (tags !== undefined) {
        const read = async () => {
          if (typeof object.read === 'function') return bodyValue(await object.read(ctx.db, ctx.caller.organizationId, ctx.params));
          try {
            return bodyValue((await handlers[object.read]({ ...ctx, operationId: object.read, params: ctx.params, query: {}, body: undefined })).body);
          } catch (err) {
            if (err instanceof ApiError && err.status === 404) return undefined;
            throw err;
          }
        };
        await checkIfMatch(ctx.db, ctx.caller.organizationId, tags, object, read);
      }
    }
    const reply = await run();
    if (!c.etagStatuses.has(reply.status)) return reply;
    // A reply whose body is more than the object's read (a webhook endpoint with its new secret) gives its own.
    const etag = reply.headers?.ETag ?? etagOf(bodyValue(reply.body));
    if (c.ifNoneMatch && notModified(req, etag)) return { status: 304, headers: { ...reply.headers, ETag: etag } };
    return { ...reply, headers: { ...reply.headers, ETag: etag } };
  }
  return { around, check };
}
