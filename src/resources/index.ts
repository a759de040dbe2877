import type { HandlerMap, OperationId } from '../http/handler';
import { tokenHandlers } from './oauth2/token';
import { healthHandlers } from './health/handlers';
import { taxCodeHandlers } from './tax-codes/handlers';
import { unitOfMeasureHandlers } from './units-of-measure/handlers';
import { jobHandlers } from './jobs/handlers';
import { groupHandlers } from './groups/handlers';
import { locationHandlers } from './locations/handlers';
import { vendorHandlers } from './vendors/handlers';
import { phaseHandlers } from './phases/handlers';
import { costCategoryHandlers } from './cost-categories/handlers';
import { userHandlers } from './users/handlers';
import { tagHandlers } from './tags/handlers';
import { orderHandlers } from './orders/handlers';
import { itemHandlers } from './items/handlers';
import { orderTagHandlers } from './order-tags/handlers';
import { notificationHandlers } from './notifications/handlers';
import { changeOrderHandlers } from './change-orders/handlers';
import { releaseHandlers } from './releases/handlers';
import { billOfMaterialsHandlers } from './bills-of-materials/handlers';
import { requisitionHandlers } from './requisitions/handlers';
import { warehouseRequestHandlers } from './warehouse-requests/handlers';
import { deliveryReceiptHandlers } from './delivery-receipts/handlers';
import { invoiceHandlers } from './invoices/handlers';
import { invoiceItemHandlers } from './invoice-items/handlers';
import { changeHandlers } from './changes/handlers';
import { reconciliationHandlers } from './reconciliation/handlers';
import { webhookEndpointHandlers } from './webhook-endpoints/handlers';
import { versionHandlers } from './versions/handlers';

/**
 * The batches, by the body property that holds their list: elements of it that the contract's
 * schema rejects are handed to the operation (`rejected`), which names them in one 400 with the
 * elements its own checks reject, one line `Position <n>: ...` each (db/batch.ts).
 */
export const BATCH_LISTS: Partial<Record<OperationId, string>> = {
  upsertJobs: 'inputs',
  upsertVendors: 'inputs',
  upsertPhases: 'inputs',
  updateBillOfMaterialsItems: 'inputs',
  createBillOfMaterialsItems: 'billOfMaterialsItems',
};

/**
 * Every operation of the contract, mapped to its handler. `satisfies HandlerMap` makes a missing
 * or extra operationId, or a handler whose types disagree with the contract, a compile error.
 */
export function allHandlers(jwtSecret: string): HandlerMap {
  return {
    ...tokenHandlers(jwtSecret),
    ...healthHandlers,
    ...taxCodeHandlers,
    ...unitOfMeasureHandlers,
    ...jobHandlers,
    ...groupHandlers,

    ...locationHandlers,
    ...vendorHandlers,

    ...phaseHandlers,
    ...costCategoryHandlers,
    ...userHandlers,
    ...tagHandlers,

    ...orderHandlers,
    ...itemHandlers,
    ...orderTagHandlers,
    ...notificationHandlers,

    ...changeOrderHandlers,
    ...releaseHandlers,
    ...billOfMaterialsHandlers,

    ...requisitionHandlers,
    ...warehouseRequestHandlers,
    ...deliveryReceiptHandlers,
    ...invoiceHandlers,
    ...invoiceItemHandlers,

    ...changeHandlers,
    ...reconciliationHandlers,
    ...webhookEndpointHandlers,
    ...versionHandlers,
  } satisfies HandlerMap;
}
