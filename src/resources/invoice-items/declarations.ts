import type { ResourceDeclarations } from '../declarations';
import { invoiceItems } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const invoiceItemsDeclarations: ResourceDeclarations = {
  reconciled: { invoice_item: invoiceItems },
};
