import { setExternalId } from '../../db/external-id';
import { ApiError, notFound } from '../../errors';
import { type Handlers, okOrNotFound, orNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { reportedMessage } from '../integration-report';
import * as q from './queries';

const missing = (id: string) => notFound(`No change order matches ${id}.`);

export const changeOrderHandlers: Handlers<'listChangeOrders' | 'getChangeOrder' | 'setChangeOrderIntegrationState'> = {
  listChangeOrders: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listChangeOrders(db, caller.organizationId, listParams(query, { orderBy: 'createdAt', limit: q.CHANGE_ORDER_PAGE_CAP })),
  }),

  getChangeOrder: ({ db, caller, params }) => okOrNotFound(q.getChangeOrder(db, caller.organizationId, params.changeOrderId), missing, params.changeOrderId),

  setChangeOrderIntegrationState: async ({ db, caller, params, body, changes }) => {
    const message = reportedMessage(body);
    const orgId = caller.organizationId;
    const found = orNotFound(await q.getChangeOrder(db, orgId, params.changeOrderId), missing, params.changeOrderId);
    const { id, versionNumber } = JSON.parse(found) as { id: string; versionNumber: number };
    // A report naming another version is about another change order: storing it here would be wrong.
    if (body.versionNumber !== undefined && body.versionNumber !== versionNumber) {
      throw new ApiError(409, 'stale-version', 'Conflict', [
        {
          message: `body.versionNumber: this change order is version ${versionNumber}, not ${body.versionNumber}`,
          field: 'body.versionNumber',
          rule: 'current-version',
        },
      ]);
    }
    if (body.externalId !== undefined) await setExternalId(db, 'change_orders', orgId, 'change order', id, body.externalId);
    await q.setIntegrationState(db, orgId, id, body.integrationState, message);
    changes.add({ type: 'change_order.integration_state_changed', resource: 'change_order', id, data: JSON.parse((await q.getChangeOrder(db, orgId, id))!) });
    return { status: 200, body: true };
  },
};
