import { setExternalId } from '../../db/external-id';
import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound } from '../../http/handler';
import { type Parent, plainHandlers } from '../crud-handlers';
import * as q from './queries';

const missing = (id: string) => notFound(`No requisition matches ${id}.`);
const parentRequisition: Parent = { def: q.requisitions, column: 'ri.requisition_id', missing };

export const requisitionHandlers: Handlers<'listRequisitions' | 'getRequisition' | 'listRequisitionItems' | 'updateRequisitionState'> = {
  listRequisitions: plainHandlers<Schema<'Requisition'>>(q.requisitions).list({ orderBy: 'createdAt' }),

  getRequisition: ({ db, caller, params }) => okOrNotFound(q.getRequisition(db, caller.organizationId, params.requisitionId), missing, params.requisitionId),

  listRequisitionItems: plainHandlers<Schema<'RequisitionItem'>>(q.requisitionItems).listByParent('requisitionId', parentRequisition, {
    orderBy: 'lineNumber',
  }),

  updateRequisitionState: async ({ db, caller, params, query }) => {
    if (query.externalId !== undefined)
      await setExternalId(db, 'requisitions', caller.organizationId, 'requisition', params.requisitionId, query.externalId, 'query.externalId');
    return okOrNotFound(q.setRequisitionState(db, caller.organizationId, params.requisitionId, query.state, caller.userId), missing, params.requisitionId);
  },
};
