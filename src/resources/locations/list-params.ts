import { listParams } from '../../http/list-params';
import type { Direction, ListParams } from '../../db/list';

/** Location list parameters; `displayName` orders by the location's name (also a job's locations). */
export function locationListParams(query: { limit?: number; offset?: number; orderBy?: string; direction?: Direction; filter?: object }): ListParams {
  const p = listParams(query, { orderBy: 'createdAt' });
  if (p.orderBy === 'displayName') p.orderBy = 'name';
  return p;
}
