import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const deliveryReceiptsDeclarations: ResourceDeclarations = {
  feed: {
    updateDeliveryReceiptIntegrationState: one('delivery_receipt', 'integration_state_changed'),
  },
};
