import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

const missing = (id: string) => notFound(`No change order matches ${id}.`);

export const changeOrderHandlers: Handlers<'listChangeOrders' | 'getChangeOrder' | 'setChangeOrderIntegrationState'> = {
  listChangeOrders: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listChangeOrders(db, caller.organizationId, listParams(query, { orderBy: 'createdAt', limit: q.CHANGE_ORDER_PAGE_CAP })),
  }),

  getChangeOrder: async ({ db, caller, params }) => {
    const found = await q.getChangeOrder(db, caller.organizationId, params.changeOrderId);
    if (!found) throw missing(params.changeOrderId);
    return { status: 200, body: found };
  },

  setChangeOrderIntegrationState: async ({ db, caller, params, body }) => {
    const ok = await q.setIntegrationState(db, caller.organizationId, params.changeOrderId, body.integrationState, body.integrationMessage);
    if (!ok) throw missing(params.changeOrderId);
    return { status: 200, body: true };
  },
};
