import { col, idCol, tsCol } from '../../db/columns';
import type { ResourceDef } from '../../db/resource';

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
