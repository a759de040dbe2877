import type { HandlerMap } from '../http/handler';
import { JsonParts, JsonStream } from '../db/json';
import { FEED_OPERATIONS } from './feed-operations';

/** A reply body as a value: JSON built by PostgreSQL arrives as text. */
const valueOf = (body: unknown): unknown => (typeof body === 'string' ? JSON.parse(body) : body instanceof JsonParts ? JSON.parse(body.text()) : body);

/**
 * Wraps every write handler of FEED_OPERATIONS so that, once it has succeeded, its entries are
 * derived from its reply and recorded on `ctx.changes`, inside the request's transaction (the
 * backend appends them as the transaction's last statement, src/feed/append.ts). A handler that
 * throws records nothing, and its transaction rolls back.
 */
export function withFeed(handlers: HandlerMap): HandlerMap {
  type AnyHandler = (ctx: any) => Promise<{ status: number; body?: unknown; headers?: Record<string, string> }>;
  const wrapped: Record<string, AnyHandler> = { ...(handlers as unknown as Record<string, AnyHandler>) };
  for (const [operationId, emit] of Object.entries(FEED_OPERATIONS)) {
    const handler = wrapped[operationId];
    if (!handler || !emit) continue;
    wrapped[operationId] = async (ctx) => {
      const reply = await handler(ctx);
      if (reply.status >= 300 || reply.body instanceof JsonStream) return reply;
      const entries = await emit(valueOf(reply.body), {
        db: ctx.db,
        organizationId: ctx.caller.organizationId,
        status: reply.status,
        params: ctx.params,
        query: ctx.query,
        input: ctx.body,
        changes: ctx.changes,
      });
      ctx.changes.add(...entries);
      return reply;
    };
  }
  return wrapped as unknown as HandlerMap;
}
