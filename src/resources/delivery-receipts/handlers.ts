import { setExternalId } from '../../db/external-id';
import { isUuid } from '../../db/columns';
import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound, orNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { requireOrder } from '../orders/lookup';
import { reportedMessage } from '../integration-report';
import { type Parent, plainHandlers } from '../crud-handlers';
import * as q from './queries';

const missing = (id: string) => notFound(`No delivery receipt matches ${id}.`);
const parentReceipt: Parent = { def: q.deliveryReceipts, column: 'dri.delivery_receipt_id', missing };

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
    await requireOrder(db, caller.organizationId, params.orderId);
    return {
      status: 200,
      body: await q.listDeliveryReceipts(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' }), {
        includeDeleted: query.includeDeleted ?? false,
        issueTypes: issueTypes(query.filter),
        orderId: params.orderId,
      }),
    };
  },

  getDeliveryReceipt: ({ db, caller, params, query }) =>
    okOrNotFound(q.getDeliveryReceipt(db, caller.organizationId, params.deliveryReceiptId, query.includeDeleted ?? false), missing, params.deliveryReceiptId),

  listDeliveryReceiptItems: plainHandlers<Schema<'DeliveryReceiptItem'>>(q.deliveryReceiptItems).listByParent('deliveryReceiptId', parentReceipt, {
    orderBy: 'createdAt',
  }),

  updateDeliveryReceiptIntegrationState: async ({ db, caller, params, body }) => {
    const message = reportedMessage(body);
    if (body.externalId !== undefined)
      await setExternalId(db, 'delivery_receipts', caller.organizationId, 'delivery receipt', params.deliveryReceiptId, body.externalId);
    const updated =
      isUuid(params.deliveryReceiptId) &&
      (await q.setDeliveryReceiptIntegrationState(db, caller.organizationId, params.deliveryReceiptId, body.integrationState, message))
        ? await q.getDeliveryReceipt(db, caller.organizationId, params.deliveryReceiptId)
        : undefined;
    return { status: 200, body: orNotFound(updated, missing, params.deliveryReceiptId) };
  },
};
