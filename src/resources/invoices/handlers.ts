import { setExternalId } from '../../db/external-id';
import { existsById } from '../../db/resource';
import { ApiError } from '../../errors';
import { type Handlers, okOrNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { missingInvoice } from './lookup';
import { reportedMessage } from '../integration-report';
import { users } from '../users/queries';
import * as q from './queries';

const missingInput = (field: string, message: string) => new ApiError(404, 'not-found', 'Not found', [{ message: `${field}: ${message}`, field }]);

export const invoiceHandlers: Handlers<'listInvoices' | 'getInvoice' | 'markInvoicesPaid' | 'updateInvoiceIntegrationState'> = {
  listInvoices: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listInvoices(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' }), query.includeDeleted ?? false),
  }),

  getInvoice: ({ db, caller, params, query }) =>
    okOrNotFound(q.getInvoice(db, caller.organizationId, params.invoiceId, query.includeDeleted ?? false), missingInvoice, params.invoiceId),

  /** All or nothing: every reference is checked (in the transaction, invoices locked) before any write. */
  markInvoicesPaid: async ({ db, caller, body }) => {
    const orgId = caller.organizationId;
    const ids = [...new Set(body.ids)];
    const updated = await db.transaction(async (tx) => {
      if (!(await existsById(tx, users, orgId, body.userId))) throw missingInput('body.userId', `no user matches ${body.userId}`);
      const found = await q.existingInvoiceIds(tx, orgId, ids);
      const unknown = ids.findIndex((id) => !found.has(id));
      if (unknown >= 0) throw missingInput(`body.ids[${body.ids.indexOf(ids[unknown])}]`, `no invoice matches ${ids[unknown]}`);
      return q.markPaid(tx, orgId, ids, body.userId);
    });
    return { status: 200, body: updated };
  },

  /** The integrating system's report; like the order report it leaves updatedAt alone. */
  updateInvoiceIntegrationState: async ({ db, caller, params, body, changes }) => {
    const message = reportedMessage(body);
    const orgId = caller.organizationId;
    if (body.externalId !== undefined) await setExternalId(db, 'invoices', orgId, 'invoice', params.invoiceId, body.externalId);
    if (!(await q.setIntegrationState(db, orgId, params.invoiceId, body.integrationState, message))) throw missingInvoice(params.invoiceId);
    const invoice = (await q.getInvoice(db, orgId, params.invoiceId))!;
    changes.add({ type: 'invoice.integration_state_changed', resource: 'invoice', id: params.invoiceId, data: JSON.parse(invoice) });
    return { status: 200, body: invoice };
  },
};
