import type { HandlerMap } from '../http/handler';
import { tokenHandlers } from '../auth/token';
import { taxCodeHandlers } from './tax-codes/handlers';
import { unitOfMeasureHandlers } from './units-of-measure/handlers';
// --- imports: jobs and groups ---

// --- imports: locations and vendors ---

// --- imports: phases, cost categories, users, tags ---

// --- imports: purchasing ---

// --- imports: change orders, releases, bills of materials ---
import { changeOrderHandlers } from './change-orders/handlers';
import { releaseHandlers } from './releases/handlers';
import { billOfMaterialsHandlers } from './bills-of-materials/handlers';

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

    // --- handlers: change orders, releases, bills of materials ---
    ...changeOrderHandlers,
    ...releaseHandlers,
    ...billOfMaterialsHandlers,

    // --- handlers: receiving and billing ---

  } satisfies HandlerMap;
}
