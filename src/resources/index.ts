import type { HandlerMap } from '../http/handler';
import type { ResourceDeclarations } from './declarations';
import { reconciledSources } from './reconciliation/sources';
import { billsOfMaterialsDeclarations } from './bills-of-materials/declarations';
import { changeOrdersDeclarations } from './change-orders/declarations';
import { costCategoriesDeclarations } from './cost-categories/declarations';
import { deliveryReceiptsDeclarations } from './delivery-receipts/declarations';
import { groupsDeclarations } from './groups/declarations';
import { invoiceItemsDeclarations } from './invoice-items/declarations';
import { invoicesDeclarations } from './invoices/declarations';
import { itemsDeclarations } from './items/declarations';
import { jobsDeclarations } from './jobs/declarations';
import { locationsDeclarations } from './locations/declarations';
import { notificationsDeclarations } from './notifications/declarations';
import { oauth2Declarations } from './oauth2/declarations';
import { orderTagsDeclarations } from './order-tags/declarations';
import { ordersDeclarations } from './orders/declarations';
import { phasesDeclarations } from './phases/declarations';
import { releasesDeclarations } from './releases/declarations';
import { requisitionsDeclarations } from './requisitions/declarations';
import { tagsDeclarations } from './tags/declarations';
import { taxCodesDeclarations } from './tax-codes/declarations';
import { unitsOfMeasureDeclarations } from './units-of-measure/declarations';
import { usersDeclarations } from './users/declarations';
import { vendorsDeclarations } from './vendors/declarations';
import { warehouseRequestsDeclarations } from './warehouse-requests/declarations';
import { webhookEndpointsDeclarations } from './webhook-endpoints/declarations';

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

/** Every resource's declarations (declarations.ts): the tables below are built from them alone. */
const DECLARATIONS: readonly ResourceDeclarations[] = [
  billsOfMaterialsDeclarations,
  changeOrdersDeclarations,
  costCategoriesDeclarations,
  deliveryReceiptsDeclarations,
  groupsDeclarations,
  invoiceItemsDeclarations,
  invoicesDeclarations,
  itemsDeclarations,
  jobsDeclarations,
  locationsDeclarations,
  notificationsDeclarations,
  oauth2Declarations,
  orderTagsDeclarations,
  ordersDeclarations,
  phasesDeclarations,
  releasesDeclarations,
  requisitionsDeclarations,
  tagsDeclarations,
  taxCodesDeclarations,
  unitsOfMeasureDeclarations,
  usersDeclarations,
  vendorsDeclarations,
  warehouseRequestsDeclarations,
  webhookEndpointsDeclarations,
];

/** One table of a kind of declaration, merged over every resource; an operation two resources declare is a mistake. */
function table<K extends keyof ResourceDeclarations>(kind: K): NonNullable<ResourceDeclarations[K]> {
  const merged: Record<string, unknown> = {};
  for (const declared of DECLARATIONS) {
    for (const [key, value] of Object.entries(declared[kind] ?? {})) {
      if (key in merged) throw new Error(`${key} is declared twice in ${kind}`);
      merged[key] = value;
    }
  }
  return merged as NonNullable<ResourceDeclarations[K]>;
}

/** Which feed entries each write emits, derived from its reply (test/changes.test.ts: every write is here, in FEED_BY_HANDLER or in FEED_EXCLUDED). */
export const FEED_OPERATIONS = table('feed');
/** Writes whose handlers record their own entries; checked by test/orders-authoring.test.ts and test/changes.test.ts. */
export const FEED_BY_HANDLER = table('feedByHandler');
/** Writes that change no resource of the contract, each with its reason. */
export const FEED_EXCLUDED = table('feedExcluded');
/** Each feed resource's read of objects by id, for the emitters (EmitContext.read). */
export const FEED_READS = table('reads');
/** The object each single-object write changes, for If-Match: the backend refuses to start when an operation declares If-Match and is missing here. */
export const OBJECT_WRITES = table('objects');
/** The batches, by the body property that holds their list (ResourceDeclarations.batchLists). */
export const BATCH_LISTS = table('batchLists');
/** Operations with their own answer to a request the contract's validation refuses (the token endpoint). */
export const VALIDATION_FAIL_FOR = table('validationFail');
/** Operations that answer their client errors in their own format (the token endpoint). */
export const OWN_PROBLEM_FORMATS = table('ownProblemFormats');
/**
 * The resources GET /reconciliation/{resource} answers, with the ResourceDef each is read with
 * (ResourceDeclarations.reconciled): handed to the reconciliation's handler here, and to its
 * backfill and captures by the background worker and the demo loader.
 */
export const RECONCILED = reconciledSources(table('reconciled'));

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
    ...reconciliationHandlers(RECONCILED),
    ...webhookEndpointHandlers,
    ...versionHandlers,
  } satisfies HandlerMap;
}
