import { invalidField, notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { setIntegrationState } from './store';
import * as q from './queries';

import { missingOrder } from '../lookups';

export const orderHandlers: Handlers<'listOrders' | 'getOrder' | 'updateOrderIntegrationState' | 'findSellerOrder'> = {
  listOrders: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listOrders(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' })),
  }),

  getOrder: async ({ db, caller, params }) => {
    const found = await q.getOrder(db, caller.organizationId, params.id);
    if (!found) throw missingOrder(params.id);
    return { status: 200, body: found };
  },

  updateOrderIntegrationState: async ({ db, caller, params, body }) => {
    const message = body.integrationMessage ?? null;
    if (body.integrationState === 'ERROR' && !message?.trim()) {
      throw invalidField('body.integrationMessage', 'required', 'is required when integrationState is ERROR');
    }
    const orgId = caller.organizationId;
    if (!(await q.orderExists(db, orgId, params.id))) throw missingOrder(params.id);
    await setIntegrationState(db, orgId, params.id, body.integrationState, message);
    return { status: 200, body: (await q.getOrder(db, orgId, params.id))! };
  },

  findSellerOrder: async ({ db, caller, params }) => {
    const found = await q.findSellerOrder(db, caller.organizationId, params.buyerId, params.purchaseOrderNumber);
    if (!found) throw notFound(`No order of buyer ${params.buyerId} sent to you matches purchase order number ${params.purchaseOrderNumber}.`);
    return { status: 200, body: found };
  },
};
