import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneJson, scoped, whereId } from '../../db/resource';
import type { Schema } from '../../http/handler';

type WarehouseRequest = Schema<'WarehouseRequest'>;
type WarehouseRequestItem = Schema<'WarehouseRequestItem'>;

export const warehouseRequests: ResourceDef = {
  table: 'warehouse_requests',
  alias: 'wr',
  columns: {
    id: idCol('wr.id'),
    identifier: col('wr.identifier'),
    state: col('wr.state'),
    needByDateDay: tsCol('wr.need_by_date_day'),
    locationId: idCol('wr.location_id'),
    jobId: idCol('wr.job_id'),
    createdById: idCol('wr.created_by_id'),
    createdAt: tsCol('wr.created_at'),
    updatedAt: tsCol('wr.updated_at'),
  },
};

export const warehouseRequestItems: ResourceDef = {
  table: 'warehouse_request_items',
  alias: 'wri',
  columns: {
    id: idCol('wri.id'),
    warehouseRequestId: idCol('wri.warehouse_request_id'),
    lineNumber: col('wri.line_number'),
    state: col('wri.state'),
    description: col('wri.description'),
    quantity: col('wri.quantity'),
    pickedQuantity: col('wri.picked_quantity'),
    uom: col('wri.uom'),
    notes: col('wri.notes'),
    upc: col('wri.upc'),
    sku: col('wri.sku'),
    mpn: col('wri.mpn'),
    requisitionId: idCol('wri.requisition_id'),
    createdById: idCol('wri.created_by_id'),
    createdAt: tsCol('wri.created_at'),
    updatedAt: tsCol('wri.updated_at'),
  },
};

export const listWarehouseRequests = (db: Queryable, orgId: string, params: ListParams) =>
  listJson<WarehouseRequest>(db, warehouseRequests, scoped(db, warehouseRequests, orgId), params);

export const getWarehouseRequest = (db: Queryable, orgId: string, id: string) =>
  oneJson<WarehouseRequest>(db, warehouseRequests, whereId(scoped(db, warehouseRequests, orgId), warehouseRequests, id));

export async function warehouseRequestExists(db: Queryable, orgId: string, id: string): Promise<boolean> {
  return !!(await whereId(scoped(db, warehouseRequests, orgId), warehouseRequests, id).first('wr.id'));
}

export const listWarehouseRequestItems = (db: Queryable, orgId: string, requestId: string, params: ListParams) =>
  listJson<WarehouseRequestItem>(db, warehouseRequestItems, scoped(db, warehouseRequestItems, orgId).where('wri.warehouse_request_id', requestId), params);
