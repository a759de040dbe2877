import { isUuid } from '../../db/columns';
import { invalidField, notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';
import { orderExists } from '../orders/queries';

const missing = (id: string) => notFound(`No delivery receipt matches ${id}.`);

const issueTypes = (filter: { issueType_in?: q.IssueFilter[] } | undefined) => filter?.issueType_in;

export const deliveryReceiptHandlers: Handlers<
  'listDeliveryReceipts' | 'listOrderDeliveryReceipts' | 'getDeliveryReceipt' | 'listDeliveryReceiptItems' | 'updateDeliveryReceiptIntegrationState'
> = {
  listDeliveryReceipts: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listDeliveryReceipts(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' }), {
      includeDeleted: query.includeDeleted ?? false,
      issueTypes: issueTypes(query.filter),
    }),
  }),

  listOrderDeliveryReceipts: async ({ db, caller, params, query }) => {
    if (!(await orderExists(db, caller.organizationId, params.orderId))) throw notFound(`No order matches ${params.orderId}.`);
    return {
      status: 200,
      body: await q.listDeliveryReceipts(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' }), {
        includeDeleted: query.includeDeleted ?? false,
        issueTypes: issueTypes(query.filter),
        orderId: params.orderId,
      }),
    };
  },

  getDeliveryReceipt: async ({ db, caller, params, query }) => {
    const found = await q.getDeliveryReceipt(db, caller.organizationId, params.id, query.includeDeleted ?? false);
    if (!found) throw missing(params.id);
    return { status: 200, body: found };
  },

  listDeliveryReceiptItems: async ({ db, caller, params, query }) => {
    if (!(await q.deliveryReceiptExists(db, caller.organizationId, params.id))) throw missing(params.id);
    return { status: 200, body: await q.listDeliveryReceiptItems(db, caller.organizationId, params.id, listParams(query, { orderBy: 'createdAt' })) };
  },

  updateDeliveryReceiptIntegrationState: async ({ db, caller, params, body }) => {
    const message = body.integrationMessage ?? null;
    if (body.integrationState === 'ERROR' && !message?.trim()) {
      throw invalidField('body.integrationMessage', 'required', 'is required when integrationState is ERROR');
    }
    const updated =
      isUuid(params.id) && (await q.setDeliveryReceiptIntegrationState(db, caller.organizationId, params.id, body.integrationState, message))
        ? await q.getDeliveryReceipt(db, caller.organizationId, params.id)
        : undefined;
    if (!updated) throw missing(params.id);
    return { status: 200, body: updated };
  },
};
