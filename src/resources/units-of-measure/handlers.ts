import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

const missing = (idOrCode: string) => notFound(`No unit of measure matches ${idOrCode}.`);

export const unitOfMeasureHandlers: Handlers<'listUnitsOfMeasure' | 'createUnitOfMeasure' | 'getUnitOfMeasure' | 'updateUnitOfMeasure'> = {
  listUnitsOfMeasure: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listUnitsOfMeasure(db, caller.organizationId, listParams(query, { orderBy: 'code' })),
  }),

  createUnitOfMeasure: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createUnitOfMeasure(db, caller.organizationId, body),
  }),

  getUnitOfMeasure: async ({ db, caller, params }) => {
    const found = await q.getUnitOfMeasure(db, caller.organizationId, params.idOrCode);
    if (!found) throw missing(params.idOrCode);
    return { status: 200, body: found };
  },

  updateUnitOfMeasure: async ({ db, caller, params, body }) => {
    const updated = await q.updateUnitOfMeasure(db, caller.organizationId, params.idOrCode, body);
    if (!updated) throw missing(params.idOrCode);
    return { status: 200, body: updated };
  },
};
