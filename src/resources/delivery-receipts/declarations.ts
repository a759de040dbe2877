import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { deliveryReceipts } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const deliveryReceiptsDeclarations: ResourceDeclarations = {
  reconciled: { delivery_receipt: deliveryReceipts },
  feed: {
    updateDeliveryReceiptIntegrationState: one('delivery_receipt', 'integration_state_changed'),
  },
};
