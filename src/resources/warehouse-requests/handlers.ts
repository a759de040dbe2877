import { notFound } from '../../errors';
import type { Handlers, Schema } from '../../http/handler';
import { type Parent, plainHandlers } from '../crud-handlers';
import * as q from './queries';

/**
 * The spec lists two spellings for the item read and the item list (`/warehouseRequests/...` and
 * `/warehouse-requests/...`): each has its own operationId and both run the same code.
 */
const missing = (id: string) => notFound(`No warehouse request matches ${id}.`);

const warehouseRequest = plainHandlers<Schema<'WarehouseRequest'>>(q.warehouseRequests);
const getOne = warehouseRequest.get('warehouseRequestId', missing);

const items = plainHandlers<Schema<'WarehouseRequestItem'>>(q.warehouseRequestItems);
const parentRequest: Parent = { def: q.warehouseRequests, column: 'wri.warehouse_request_id', missing };
const ITEM_LIST = { orderBy: 'lineNumber', limit: 100 };

export const warehouseRequestHandlers: Handlers<
  'listWarehouseRequests' | 'getWarehouseRequest' | 'getWarehouseRequestLegacy' | 'listWarehouseRequestItems' | 'listWarehouseRequestItemsLegacy'
> = {
  listWarehouseRequests: warehouseRequest.list({ orderBy: 'createdAt', limit: 100 }),
  getWarehouseRequest: getOne,
  getWarehouseRequestLegacy: getOne,
  listWarehouseRequestItems: items.listByParent('warehouseRequestId', parentRequest, ITEM_LIST),
  listWarehouseRequestItemsLegacy: items.listByParent('warehouseRequestId', parentRequest, ITEM_LIST),
};
