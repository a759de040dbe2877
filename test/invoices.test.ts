import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { Basics, basics, file, invoice, order } from './support/billing-fixtures';
import { harness } from './support/harness';
import { itDirect, PRISM } from './support/proxy';

describe('invoices', () => {
  let org: TestOrg;
  let b: Basics;
  const ids: Record<string, string> = {};
  const numbers = (list: { invoiceNumber: string | null }[]) => list.map((i) => i.invoiceNumber);

  before(async () => {
    org = await newOrg();
    b = await basics(org);
    const { orderId } = await order(org, b);
    const scan = await file(org, 'invoice-scan.pdf');
    ids.a = await invoice(
      org,
      b,
      {
        invoice_number: 'A-100',
        title: 'Copper',
        category: 'material',
        state: 'APPROVED',
        order_id: orderId,
        shipping_cost: 45,
        subtotal: 2350,
        tax: 170.38,
        total_due: 2565.38,
        invoice_date: '2026-11-06T00:00:00Z',
        ship_date: '2026-11-05T00:00:00Z',
        approved_at: '2026-11-08T09:00:00Z',
        approved_by_id: b.otherUserId,
        integration_state: 'LINKED',
        exceptions: ['unitPrice', 'quantity'],
        terms: 'Net 30',
      },
      [],
      [scan],
    );
    ids.b = await invoice(org, b, {
      invoice_number: 'B-200',
      category: 'genContractor',
      state: 'INBOX',
      flagged: true,
      flagged_at: '2026-11-09T10:00:00Z',
      flag_message: 'No PO',
      invoice_date: '2026-11-01T00:00:00Z',
      integration_state: 'ERROR',
      integration_message: 'Vendor not mapped',
      tax_exempt: true,
    });
    ids.c = await invoice(org, b, {
      invoice_number: 'C-300',
      category: 'rentals',
      state: 'PENDING',
      type: 'CREDIT_MEMO',
      invoice_date: '2026-11-03T00:00:00Z',
    });
    ids.d = await invoice(org, b, { invoice_number: 'D-400', category: 'miscellaneous', state: 'INBOX', integration_state: 'LINKING' });
    ids.deleted = await invoice(org, b, { invoice_number: 'Z-999', deleted_at: new Date() });
  });

  it('returns every field, shippingCostFloat, the spec category spelling and attachments', async () => {
    const inv = expectStatus(await org.api.get(`/invoices/${ids.a}`), 200).body;
    expect(inv).to.include({
      id: ids.a,
      invoiceNumber: 'A-100',
      title: 'Copper',
      category: 'material',
      state: 'APPROVED',
      shippingCostFloat: 45,
      subtotal: 2350,
      tax: 170.38,
      totalDue: 2565.38,
      integrationState: 'LINKED',
      integrationMessage: null,
      type: 'INVOICE',
      flagged: false,
      taxExempt: false,
      jobId: b.jobId,
      vendorId: b.vendorId,
      createdById: b.userId,
      approvedById: b.otherUserId,
      deletedAt: null,
      paidAt: null,
      terms: 'Net 30',
    });
    expect(inv.orderId).to.be.a('string');
    expect(inv.approvedAt).to.equal('2026-11-08T09:00:00.000Z');
    expect(inv.exceptions).to.deep.equal(['unitPrice', 'quantity']);
    expect(inv.attachments.map((f) => f.name)).to.deep.equal(['invoice-scan.pdf']);
    expect(expectStatus(await org.api.get(`/invoices/${ids.b}`), 200).body).to.include({
      category: 'genContractor',
      flagged: true,
      flagMessage: 'No PO',
      taxExempt: true,
    });
  });

  it('hides deleted invoices unless includeDeleted', async () => {
    expect(numbers(expectStatus(await org.api.get('/invoices'), 200).body)).to.not.include('Z-999');
    const all = expectStatus(await org.api.get('/invoices?includeDeleted=true&filter[invoiceNumber]=Z-999'), 200).body;
    expect(all).to.have.length(1);
    expect(all[0].deletedAt).to.match(/Z$/);
    problemOf(await org.api.get(`/invoices/${ids.deleted}`), 404);
    expect(expectStatus(await org.api.get(`/invoices/${ids.deleted}?includeDeleted=true`), 200).body.id).to.equal(ids.deleted);
  });

  it('filters on every listed field; integration state only with _in', async () => {
    const get = async (q: string) => numbers(expectStatus(await org.api.get(`/invoices?orderBy=id&${q}`), 200).body).sort();
    expect(await get('filter[category]=genContractor')).to.deep.equal(['B-200']);
    expect(await get('filter[category_in]=rentals,miscellaneous')).to.deep.equal(['C-300', 'D-400']);
    expect(await get('filter[flagged]=true')).to.deep.equal(['B-200']);
    expect(await get('filter[taxExempt]=true')).to.deep.equal(['B-200']);
    expect(await get('filter[type]=CREDIT_MEMO')).to.deep.equal(['C-300']);
    expect(await get('filter[state]=INBOX')).to.deep.equal(['B-200', 'D-400']);
    expect(await get('filter[integrationState_in]=ERROR,LINKING')).to.deep.equal(['B-200', 'D-400']);
    expect(await get('filter[integrationState_in][]=LINKED')).to.deep.equal(['A-100']);
    expect(await get('filter[invoiceNumber_starts_with]=c-')).to.deep.equal(['C-300']);
    expect(await get('filter[invoiceDate_gte]=2026-11-03T00:00:00.000Z')).to.deep.equal(['A-100', 'C-300']);
    expect(await get('filter[approvedAt_lt]=2026-11-09T00:00:00.000Z')).to.deep.equal(['A-100']);
    expect(await get('filter[flaggedAt_gt]=2026-11-01T00:00:00.000Z')).to.deep.equal(['B-200']);
    expect(await get(`filter[id]=${ids.c}`)).to.deep.equal(['C-300']);
    for (const f of ['paidAt', 'rejectedAt', 'shipDate', 'voidedAt', 'createdAt', 'updatedAt'])
      expect(await get(`filter[${f}_lt]=2000-01-01T00:00:00.000Z`)).to.deep.equal([]);
    problemOf(await org.api.get('/invoices?filter[integrationState]=LINKED'), 400);
    problemOf(await org.api.get('/invoices?filter[integrationState_not_in]=LINKED'), 400);
    problemOf(await org.api.get('/invoices?filter[integrationState_in]=OUT_OF_SYNC'), 400);
  });

  itDirect('rejects a category outside the enum', PRISM.invalidRequest('filter[category]=gencontractor'), async () => {
    problemOf(await org.api.get('/invoices?filter[category]=gencontractor'), 400);
  });

  it('orders by every listed field, with a stable tie-break', async () => {
    const byDate = numbers(
      expectStatus(await org.api.get('/invoices?orderBy=invoiceDate&direction=DESC&filter[invoiceDate_gt]=2000-01-01T00:00:00.000Z'), 200).body,
    );
    expect(byDate).to.deep.equal(['A-100', 'C-300', 'B-200']);
    for (const f of ['approvedAt', 'createdAt', 'flaggedAt', 'id', 'invoiceDate', 'paidAt', 'rejectedAt', 'shipDate', 'updatedAt', 'voidedAt']) {
      const one = expectStatus(await org.api.get(`/invoices?orderBy=${f}`), 200).body;
      const two = expectStatus(await org.api.get(`/invoices?orderBy=${f}`), 200).body;
      expect(one.map((i: { id: string }) => i.id)).to.deep.equal(two.map((i: { id: string }) => i.id));
    }
  });

  itDirect('rejects an unlisted orderBy', PRISM.invalidRequest('orderBy=invoiceNumber'), async () => {
    problemOf(await org.api.get('/invoices?orderBy=invoiceNumber'), 400);
  });

  it('marks invoices paid: CLOSED, paidAt/paidById, approval filled when missing, returns them in order', async () => {
    const before = expectStatus(await org.api.get(`/invoices/${ids.a}`), 200).body;
    const res = expectStatus(await org.api.post('/invoices/paid', { ids: [ids.c, ids.a, ids.c], userId: b.otherUserId }), 200).body;
    expect(res.map((i: { id: string }) => i.id)).to.deep.equal([ids.c, ids.a]);
    for (const inv of res) {
      expect(inv).to.include({ state: 'CLOSED', paidById: b.otherUserId });
      expect(inv.paidAt).to.match(/Z$/);
      expect(inv.updatedAt > before.updatedAt).to.equal(true);
    }
    // Already approved: kept; not approved: approved by the payer at payment time.
    expect(res[1]).to.include({ approvedAt: '2026-11-08T09:00:00.000Z', approvedById: b.otherUserId });
    expect(res[0]).to.include({ approvedById: b.otherUserId, approvedAt: res[0].paidAt });
    expect(expectStatus(await org.api.get(`/invoices/${ids.c}`), 200).body.state).to.equal('CLOSED');
  });

  it('pays all or nothing: an unknown, deleted or foreign id or user fails the whole request naming it', async () => {
    const other = await newOrg();
    const ob = await basics(other);
    const foreign = await invoice(other, ob, { invoice_number: 'F-1' });
    for (const bad of [MISSING_ID, ids.deleted, foreign, 'not-an-id']) {
      const p = problemOf(await org.api.post('/invoices/paid', { ids: [ids.d, bad], userId: b.userId }), 404);
      expect(p.errors[0].message).to.contain(bad);
      expect(p.errors[0].field).to.equal('body.ids[1]');
    }
    const p = problemOf(await org.api.post('/invoices/paid', { ids: [ids.d], userId: ob.userId }), 404);
    expect(p.errors[0]).to.include({ field: 'body.userId' });
    expect(p.errors[0].message).to.contain(ob.userId);
    const d = expectStatus(await org.api.get(`/invoices/${ids.d}`), 200).body;
    expect(d).to.include({ state: 'INBOX', paidAt: null, paidById: null });
    const row = await harness().db('invoices').where({ id: foreign }).first('state');
    expect(row.state).to.equal('INBOX');
  });

  itDirect('requires ids and userId to mark invoices paid', PRISM.invalidRequest('an empty ids list, a body without userId'), async () => {
    problemOf(await org.api.post('/invoices/paid', { ids: [], userId: b.userId }), 400);
    problemOf(await org.api.unchecked.post('/invoices/paid', { ids: [ids.d] }), 400);
  });

  it('answers foreign invoices exactly like missing ones', async () => {
    const intruder = await newOrg();
    const ib = await basics(intruder);
    await expectForeignLikeMissing(intruder, 'GET', `/invoices/${ids.b}`, `/invoices/${MISSING_ID}`);
    await expectForeignLikeMissing(intruder, 'GET', `/invoices/${ids.b}/items`, `/invoices/${MISSING_ID}/items`);
    await expectForeignLikeMissing(intruder, 'POST', '/invoices/paid', '/invoices/paid', { ids: [ids.b], userId: ib.userId });
    expect(expectStatus(await intruder.api.get('/invoices'), 200).body).to.deep.equal([]);
    expect(expectStatus(await org.api.get(`/invoices/${ids.b}`), 200).body.state).to.equal('INBOX');
  });
});
