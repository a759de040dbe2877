import { existsById } from '../../db/resource';
import { badRequest, notFound } from '../../errors';
import type { Handlers } from '../../http/handler';
import * as q from './queries';
import { orderRows } from '../orders/queries';

/** GET /releases caps the page silently (the contract says so; meta.limit shows the cap). */
export const RELEASE_PAGE_CAP = 500;

// Unlike lookups.ts missingOrder, names a blank `orderId` (the query parameter may be empty).
const missingOrder = (orderId: string) => notFound(`No order matches ${orderId === '' ? 'a blank ID' : orderId}.`);

function nonNegative(name: 'limit' | 'offset', value: number): number {
  if (value < 0) throw badRequest([{ message: `${name} must be a non-negative integer`, field: `query.${name}`, rule: 'minimum' }]);
  return value;
}

/** A date-time bound as given; a bare date means the whole UTC day (from its start / to its end). */
function bound(value: string | undefined, end: boolean): Date | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d\d-\d\d$/.test(value)) return new Date(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`);
  return new Date(value);
}

export const releaseHandlers: Handlers<'listOrderReleases' | 'listReleases'> = {
  listOrderReleases: async ({ db, caller, params, query }) => {
    if (!(await existsById(db, orderRows, caller.organizationId, params.orderId))) throw missingOrder(params.orderId);
    return { status: 200, body: await q.listOrderReleases(db, caller.organizationId, params.orderId, query.includeCancelled ?? false) };
  },

  listReleases: async ({ db, caller, query }) => {
    const limit = Math.min(nonNegative('limit', query.limit ?? 100), RELEASE_PAGE_CAP);
    const offset = nonNegative('offset', query.offset ?? 0);
    if (query.orderId !== undefined && !(await existsById(db, orderRows, caller.organizationId, query.orderId))) throw missingOrder(query.orderId);
    const body = await q.listReleases(db, caller.organizationId, {
      orderId: query.orderId,
      from: bound(query.needByDateFrom, false),
      to: bound(query.needByDateTo, true),
      includeCancelled: query.includeCancelled ?? false,
      limit,
      offset,
    });
    return { status: 200, body };
  },
};
