import type { ResourceDeclarations } from '../declarations';
import { changeOrders } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const changeOrdersDeclarations: ResourceDeclarations = {
  reconciled: { change_order: changeOrders },
  feedByHandler: {
    setChangeOrderIntegrationState: 'change_order.integration_state_changed',
  },
};
