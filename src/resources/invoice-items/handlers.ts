import type { Handlers, Schema } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { invoices } from '../invoices/queries';
import { missingInvoice } from '../invoices/lookup';
import { type Parent, plainHandlers } from '../crud-handlers';
import * as q from './queries';

const parentInvoice: Parent = { def: invoices, column: 'ii.invoice_id', missing: missingInvoice };

export const invoiceItemHandlers: Handlers<'listInvoiceItems' | 'listAllInvoiceItems'> = {
  listInvoiceItems: plainHandlers<Schema<'InvoiceItem'>>(q.invoiceItems).listByParent('invoiceId', parentInvoice, { orderBy: 'lineNumber' }),

  listAllInvoiceItems: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.bulkInvoiceItemPage(db, caller.organizationId, {
      ...listParams(query, { orderBy: 'createdAt', direction: 'DESC', limit: 500 }),
      cursor: query.cursor,
    }),
  }),
};
