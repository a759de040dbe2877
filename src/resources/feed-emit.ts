import type { Knex } from 'knex';
import type { HandlerMap, OperationId } from '../http/handler';
import { JsonParts, JsonStream } from '../db/json';
import { settle } from '../feed/unchanged';
import { FEED_BY_HANDLER, FEED_OPERATIONS } from './feed-operations';

/** A reply body as a value: JSON built by PostgreSQL arrives as text. */
const valueOf = (body: unknown): unknown => (typeof body === 'string' ? JSON.parse(body) : body instanceof JsonParts ? JSON.parse(body.text()) : body);

type Stored = Map<string, Record<string, unknown>>;

/** An object of the reply as stored: the write was undone, so its `updatedAt` is the one before. */
const asStored = (value: unknown, stored: Stored): unknown => {
  if (Array.isArray(value)) return value.map((v) => asStored(v, stored));
  if (!value || typeof value !== 'object') return value;
  const prior = stored.get((value as { id?: string }).id ?? '');
  return prior && 'updatedAt' in value ? { ...value, updatedAt: prior.updatedAt } : value;
};

let savepoints = 0;

/**
 * Wraps every write handler of FEED_OPERATIONS and FEED_BY_HANDLER. Once it has succeeded, its
 * entries (derived from its reply for FEED_OPERATIONS, recorded by the handler for
 * FEED_BY_HANDLER) go through the rule of src/feed/unchanged.ts, inside the request's
 * transaction: entries that changed nothing are dropped; when none is left, the write is rolled
 * back to a savepoint taken before it ran (its bumped `updatedAt`, a change order, an integration
 * state, whatever it stored) and answers with the objects as stored, with the same status. The
 * backend appends what is kept as the transaction's last statement (src/feed/append.ts). A
 * handler that throws records nothing, and its transaction rolls back.
 */
export function withFeed(handlers: HandlerMap): HandlerMap {
  type AnyHandler = (ctx: any) => Promise<{ status: number; body?: unknown; headers?: Record<string, string> }>;
  const wrapped: Record<string, AnyHandler> = { ...(handlers as unknown as Record<string, AnyHandler>) };
  const writes = new Set([...Object.keys(FEED_OPERATIONS), ...Object.keys(FEED_BY_HANDLER)] as OperationId[]);
  for (const operationId of writes) {
    const handler = wrapped[operationId];
    const emit = FEED_OPERATIONS[operationId];
    if (!handler) continue;
    wrapped[operationId] = async (ctx) => {
      // Every write runs in the request's transaction (src/http/backend.ts); without one (a unit
      // test of the emitters) the entries are recorded as derived, without the rule.
      const tx = ctx.db as Knex.Transaction | undefined;
      const savepoint = tx?.isTransaction ? `write_${++savepoints}` : undefined;
      if (savepoint) await tx!.raw(`SAVEPOINT ${savepoint}`);
      const from = ctx.changes.entries.length;
      let reply = await handler(ctx);
      if (reply.status >= 300 || reply.body instanceof JsonStream) return reply;
      const organizationId: string = ctx.caller.organizationId;
      const value = emit || reply.body instanceof JsonParts || typeof reply.body === 'string' ? valueOf(reply.body) : reply.body;
      if (emit) {
        const entries = await emit(value, {
          db: tx!,
          organizationId,
          status: reply.status,
          params: ctx.params,
          query: ctx.query,
          input: ctx.body,
          changes: ctx.changes,
        });
        ctx.changes.add(...entries);
      }
      if (!savepoint) return reply;
      const { changed, kept, unchanged } = await settle(tx!, organizationId, ctx.changes.entries.slice(from), ctx.changes.updated);
      ctx.changes.entries.splice(from, Infinity, ...kept);
      if (!changed) {
        await tx!.raw(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        reply = { ...reply, body: asStored(value, unchanged) };
      }
      await tx!.raw(`RELEASE SAVEPOINT ${savepoint}`);
      return reply;
    };
  }
  return wrapped as unknown as HandlerMap;
}
