import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

const missing = (idOrCode: string) => notFound(`No tax code matches ${idOrCode}.`);

export const taxCodeHandlers: Handlers<'listTaxCodes' | 'createTaxCode' | 'getTaxCode' | 'updateTaxCode' | 'deleteTaxCode'> = {
  listTaxCodes: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listTaxCodes(db, caller.organizationId, listParams(query, { orderBy: 'code' })),
  }),

  createTaxCode: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createTaxCode(db, caller.organizationId, body),
  }),

  getTaxCode: async ({ db, caller, params }) => {
    const found = await q.getTaxCode(db, caller.organizationId, params.idOrCode);
    if (!found) throw missing(params.idOrCode);
    return { status: 200, body: found };
  },

  updateTaxCode: async ({ db, caller, params, body }) => {
    const updated = await q.updateTaxCode(db, caller.organizationId, params.idOrCode, body);
    if (!updated) throw missing(params.idOrCode);
    return { status: 200, body: updated };
  },

  deleteTaxCode: async ({ db, caller, params }) => {
    const deleted = await q.deleteTaxCode(db, caller.organizationId, params.idOrCode);
    if (!deleted) throw missing(params.idOrCode);
    return { status: 200, body: deleted };
  },
};
