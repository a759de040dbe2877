import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { invoiceExists } from '../invoices/queries';
import * as q from './queries';

export const invoiceItemHandlers: Handlers<'listInvoiceItems' | 'listAllInvoiceItems'> = {
  listInvoiceItems: async ({ db, caller, params, query }) => {
    if (!(await invoiceExists(db, caller.organizationId, params.id))) throw notFound(`No invoice matches ${params.id}.`);
    return { status: 200, body: await q.listInvoiceItems(db, caller.organizationId, params.id, listParams(query, { orderBy: 'lineNumber' })) };
  },

  listAllInvoiceItems: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.bulkInvoiceItemPage(db, caller.organizationId, {
      ...listParams(query, { orderBy: 'createdAt', direction: 'DESC', limit: 500 }),
      cursor: query.cursor,
    }),
  }),
};
