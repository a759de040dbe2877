import type { HandlerMap } from '../http/handler';
import { tokenHandlers } from '../auth/token';
import { taxCodeHandlers } from './tax-codes/handlers';
import { unitOfMeasureHandlers } from './units-of-measure/handlers';
// --- imports: jobs and groups ---

// --- imports: locations and vendors ---

// --- imports: phases, cost categories, users, tags ---

// --- imports: purchasing ---

// --- imports: change orders, releases, bills of materials ---

// --- imports: receiving and billing ---
import { requisitionHandlers } from './requisitions/handlers';
import { warehouseRequestHandlers } from './warehouse-requests/handlers';
import { deliveryReceiptHandlers } from './delivery-receipts/handlers';
import { invoiceHandlers } from './invoices/handlers';
import { invoiceItemHandlers } from './invoice-items/handlers';

/**
 * Every operation of the contract, mapped to its handler. `satisfies HandlerMap` makes a missing
 * or extra operationId, or a handler whose types disagree with the contract, a compile error.
 */
export function allHandlers(jwtSecret: string): HandlerMap {
  return {
    ...tokenHandlers(jwtSecret),
    ...taxCodeHandlers,
    ...unitOfMeasureHandlers,
    // --- handlers: jobs and groups ---

    // --- handlers: locations and vendors ---

    // --- handlers: phases, cost categories, users, tags ---

    // --- handlers: purchasing ---

    // --- handlers: change orders, releases, bills of materials ---

    // --- handlers: receiving and billing ---
    ...requisitionHandlers,
    ...warehouseRequestHandlers,
    ...deliveryReceiptHandlers,
    ...invoiceHandlers,
    ...invoiceItemHandlers,

  } satisfies HandlerMap;
}
