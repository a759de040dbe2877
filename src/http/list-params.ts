import type { Direction, ListParams } from '../db/list';

export interface ListQuery {
  limit?: number;
  offset?: number;
  orderBy?: string;
  direction?: Direction;
  filter?: object;
}

/** An operation's fallbacks for what its list query leaves out. */
export interface ListDefaults {
  orderBy: string;
  direction?: Direction;
  limit?: number;
}

/**
 * The validated list query as ListParams. Defaults (limit, orderBy, direction) are the ones the
 * operation's parameters declare in the contract, applied by the validator; the fallbacks here only
 * cover a parameter the operation does not declare.
 */
export function listParams(q: ListQuery, fallback: ListDefaults): ListParams {
  return {
    limit: q.limit ?? fallback.limit ?? 100,
    offset: q.offset ?? 0,
    orderBy: q.orderBy ?? fallback.orderBy,
    direction: q.direction ?? fallback.direction ?? 'ASC',
    filter: (q.filter ?? {}) as Record<string, unknown>,
  };
}
