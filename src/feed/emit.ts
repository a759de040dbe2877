import type { Queryable } from '../db/knex';
import type { ChangeCollector, ChangeEntry } from './append';
import type { ChangeEvent, ChangeType, FeedResource } from './change-types';

/**
 * What an emitter (a write's feed entries derived from its reply, declared by each resource)
 * is given besides the reply: the write's transaction and request.
 */
export interface EmitContext {
  /** The write's transaction. */
  db: Queryable;
  organizationId: string;
  status: number;
  params: Record<string, any>;
  query: Record<string, any>;
  input: any;
  changes: ChangeCollector;
}

/** A write's feed entries, from its reply as a value (src/http/operation.ts runs it after the handler). */
export type Emitter = (reply: any, ctx: EmitContext) => ChangeEntry[] | Promise<ChangeEntry[]>;

/** A feed entry of `resource` and one of its events (change-types.ts); `data` carries its `id`. */
export const entry = <R extends FeedResource>(resource: R, event: ChangeEvent<R>, data: { id: string; [key: string]: unknown }): ChangeEntry => ({
  type: `${resource}.${event}` as ChangeType,
  resource,
  id: data.id,
  data,
});
