import type { ResourceDeclarations } from '../declarations';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const changeOrdersDeclarations: ResourceDeclarations = {
  feedByHandler: {
    setChangeOrderIntegrationState: 'change_order.integration_state_changed',
  },
};
