import { notFound } from '../../http/errors';
import type { Ctx, Handlers, Reply } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

/**
 * The spec lists two spellings for the item read and the item list (`/warehouseRequests/...` and
 * `/warehouse-requests/...`): each has its own operationId and both run the same code.
 */
const missing = (id: string) => notFound(`No warehouse request matches ${id}.`);

async function getOne(db: Ctx<'getWarehouseRequest'>['db'], orgId: string, id: string): Promise<Reply<'getWarehouseRequest'>> {
  const found = await q.getWarehouseRequest(db, orgId, id);
  if (!found) throw missing(id);
  return { status: 200, body: found };
}

async function listItems(
  ctx: Ctx<'listWarehouseRequestItems'> | Ctx<'listWarehouseRequestItemsLegacy'>,
  id: string,
): Promise<Reply<'listWarehouseRequestItems'>> {
  const { db, caller, query } = ctx;
  if (!(await q.warehouseRequestExists(db, caller.organizationId, id))) throw missing(id);
  return { status: 200, body: await q.listWarehouseRequestItems(db, caller.organizationId, id, listParams(query, { orderBy: 'lineNumber', limit: 100 })) };
}

export const warehouseRequestHandlers: Handlers<
  'listWarehouseRequests' | 'getWarehouseRequest' | 'getWarehouseRequestLegacy' | 'listWarehouseRequestItems' | 'listWarehouseRequestItemsLegacy'
> = {
  listWarehouseRequests: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listWarehouseRequests(db, caller.organizationId, listParams(query, { orderBy: 'createdAt', limit: 100 })),
  }),
  getWarehouseRequest: ({ db, caller, params }) => getOne(db, caller.organizationId, params.id),
  getWarehouseRequestLegacy: ({ db, caller, params }) => getOne(db, caller.organizationId, params.id),
  listWarehouseRequestItems: (ctx) => listItems(ctx, ctx.params.id),
  listWarehouseRequestItemsLegacy: (ctx) => listItems(ctx, ctx.params.warehouseRequestId),
};
