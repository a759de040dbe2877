import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { orderExists } from '../orders/queries';
import { missingOrder } from '../lookups';
import * as q from './queries';

export const itemHandlers: Handlers<'listOrderItems' | 'getItem' | 'listItems'> = {
  listOrderItems: async ({ db, caller, params, query }) => {
    const orgId = caller.organizationId;
    if (!(await orderExists(db, orgId, params.id))) throw missingOrder(params.id);
    return { status: 200, body: await q.listOrderItems(db, orgId, params.id, listParams(query, { orderBy: 'lineNumber' })) };
  },

  getItem: async ({ db, caller, params }) => {
    const found = await q.getItem(db, caller.organizationId, params.id);
    if (!found) throw notFound(`No item matches ${params.id}.`);
    return { status: 200, body: found };
  },

  listItems: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listBulkItems(db, caller.organizationId, { ...listParams(query, { orderBy: 'createdAt', direction: 'DESC', limit: 500 }), cursor: query.cursor }),
  }),
};
