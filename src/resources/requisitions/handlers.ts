import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

const missing = (id: string) => notFound(`No requisition matches ${id}.`);

export const requisitionHandlers: Handlers<'listRequisitions' | 'getRequisition' | 'listRequisitionItems' | 'updateRequisitionState'> = {
  listRequisitions: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listRequisitions(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' })),
  }),

  getRequisition: async ({ db, caller, params }) => {
    const found = await q.getRequisition(db, caller.organizationId, params.id);
    if (!found) throw missing(params.id);
    return { status: 200, body: found };
  },

  listRequisitionItems: async ({ db, caller, params, query }) => {
    if (!(await q.requisitionExists(db, caller.organizationId, params.id))) throw missing(params.id);
    return { status: 200, body: await q.listRequisitionItems(db, caller.organizationId, params.id, listParams(query, { orderBy: 'lineNumber' })) };
  },

  updateRequisitionState: async ({ db, caller, params, query }) => {
    const updated = await q.setRequisitionState(db, caller.organizationId, params.id, query.state, caller.userId);
    if (!updated) throw missing(params.id);
    return { status: 200, body: updated };
  },
};
