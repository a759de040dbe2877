import type { ResourceDeclarations } from '../declarations';
import { each } from '../../feed/emit';
import { invoices } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const invoicesDeclarations: ResourceDeclarations = {
  reconciled: { invoice: invoices },
  feed: {
    markInvoicesPaid: each('invoice', 'paid'),
  },
  feedByHandler: {
    updateInvoiceIntegrationState: 'invoice.integration_state_changed',
  },
};
