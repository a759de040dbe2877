import type { ResourceDeclarations } from '../declarations';
import { warehouseRequests } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const warehouseRequestsDeclarations: ResourceDeclarations = {
  reconciled: { warehouse_request: warehouseRequests },
};
