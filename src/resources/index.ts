import type { HandlerMap } from '../http/handler';
import { tokenHandlers } from '../auth/token';
import { taxCodeHandlers } from './tax-codes/handlers';
import { unitOfMeasureHandlers } from './units-of-measure/handlers';
// --- imports: jobs and groups ---

// --- imports: locations and vendors ---

// --- imports: phases, cost categories, users, tags ---

// --- imports: purchasing ---
import { orderHandlers } from './orders/handlers';
import { itemHandlers } from './items/handlers';
import { orderTagHandlers } from './order-tags/handlers';
import { notificationHandlers } from './notifications/handlers';

// --- imports: change orders, releases, bills of materials ---

// --- imports: receiving and billing ---

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
    ...orderHandlers,
    ...itemHandlers,
    ...orderTagHandlers,
    ...notificationHandlers,

    // --- handlers: change orders, releases, bills of materials ---

    // --- handlers: receiving and billing ---

  } satisfies HandlerMap;
}
