import { expect } from 'chai';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { Client, expectStatus, newOrg, TestOrg } from './support/client';
import { harness } from './support/harness';
import { headCursor, readAll } from './support/feed';
import { basics, invoice } from './support/billing-fixtures';
import { makeOrder } from './support/release-fixtures';
import { createRelease } from '../src/resources/releases/store';

/*
 * Objects whose reads show other objects without entries of their own (issue #42): an invoice
 * item shows its tax code's, phase's and cost category's codes, a release its order's purchase
 * order number. However those are changed, through the API or by an operator's SQL `UPDATE`, the
 * showing objects' digests (GET /reconciliation/{resource}) equal the digests of what their reads
 * return now. No worker runs here: GET /reconciliation appends the captured changes and completes
 * the rebuilds they owe before it answers. The digests are computed here from the reads (RFC 8785
 * by `canonicalize`, SHA-256 by node:crypto), never with the service's functions.
 */
const db = () => harness().db;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const setDigest = (objects: { id: string }[]) =>
  sha256(
    [...objects]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((o) => `${o.id}:${sha256(canonicalize(o)!)}\n`)
      .join(''),
  );

/** The service's digests of `resource` equal those of `reads` (every live object of it), object by object. */
async function expectDigestsOf(api: Client, resource: string, reads: { id: string }[]): Promise<void> {
  const answer = expectStatus(await api.get(`/reconciliation/${resource}`), 200).body;
  const mine = reads.map((o) => ({ id: o.id, digest: sha256(canonicalize(o)!) })).sort((a, b) => (a.id < b.id ? -1 : 1));
  expect(answer.objects, `${resource} objects`).to.deep.equal(mine);
  expect(answer.count, `${resource} count`).to.equal(reads.length);
  expect(answer.digest, `${resource} digest`).to.equal(setDigest(reads));
}

/** The entries after `cursor`, as `type changedFields origin`. */
async function entriesAfter(api: Client, cursor: string): Promise<string[]> {
  return (await readAll(api, cursor)).entries.map((e) => `${e.type} ${(e.changedFields ?? []).join(',')} ${e.origin?.credentialType}`);
}

interface Billed {
  org: TestOrg;
  invoiceId: string;
  taxCode: { id: string };
  phase: { id: string };
  category: { id: string };
}

/** An invoice with an item showing a tax code, a phase and a cost category (made through the API), and one showing none. */
async function billed(): Promise<Billed> {
  const org = await newOrg();
  const taxCode = expectStatus(await org.api.post('/tax-codes', { code: 'ITX', description: 'Invoice tax', taxPercent: 0.05 }), 201).body;
  const phase = expectStatus(await org.api.post('/global-phases', { code: '03-300', description: 'Concrete' }), 201).body;
  const category = expectStatus(await org.api.post('/global-categories', { code: 'MAT', description: 'Materials' }), 201).body;
  const invoiceId = await invoice(org, await basics(org), {}, [
    { description: 'Copper pipe', tax_code_id: taxCode.id, phase_id: phase.id, cost_category_id: category.id },
    { description: 'Freight' },
  ]);
  return { org, invoiceId, taxCode, phase, category };
}

const invoiceItems = async (b: Billed) => expectStatus(await b.org.api.get(`/invoices/${b.invoiceId}/items`), 200).body as { id: string }[];

interface Released {
  org: TestOrg;
  orders: string[];
}

/** Two orders with a release each (the order store and the release store: releases have no write operation). */
async function released(): Promise<Released> {
  const org = await newOrg();
  const orders: string[] = [];
  for (const po of ['SPO-1', 'SPO-2']) {
    const order = await makeOrder(org, { purchase_order_number: po }, [{ line_number: 1, description: 'Rebar', units_of_measure: 'EA', unit_price: 10 }]);
    await createRelease(db(), org.id, { orderId: order.id, releaseNumber: `R-${po}`, items: [{ itemId: order.items[1], quantityReleased: 2 }] });
    orders.push(order.id);
  }
  return { org, orders };
}

const releases = async (r: Released) => {
  const all: { id: string; purchaseOrderNumber: string | null }[] = [];
  for (const orderId of r.orders) all.push(...expectStatus(await r.org.api.get(`/orders/${orderId}/releases`), 200).body);
  return all;
};

describe('objects shown by invoice items and releases: their digests follow a change through the API or by SQL', function () {
  this.timeout(120_000);

  it('a tax code’s, phase’s and cost category’s codes changed through the API: the invoice items’ digests follow, with no entries of theirs', async () => {
    const b = await billed();
    await expectDigestsOf(b.org.api, 'invoice_item', await invoiceItems(b));
    const cursor = await headCursor(b.org.api);
    expectStatus(await b.org.api.patch(`/tax-codes/${b.taxCode.id}`, { code: 'ITX-2' }), 200);
    expectStatus(await b.org.api.patch(`/global-phases/${b.phase.id}`, { code: '03-310' }), 200);
    expectStatus(await b.org.api.patch(`/global-categories/${b.category.id}`, { code: 'MAT-2' }), 200);
    const items = await invoiceItems(b);
    expect(items.map((i) => i as unknown as Record<string, unknown>).map((i) => [i.taxCode, i.phaseCode, i.costCategory])).to.deep.equal([
      ['ITX-2', '03-310', 'MAT-2'],
      [null, null, null],
    ]);
    await expectDigestsOf(b.org.api, 'invoice_item', items);
    expect(await entriesAfter(b.org.api, cursor)).to.deep.equal([
      'tax_code.updated code api_key',
      'phase.updated code api_key',
      'cost_category.updated code api_key',
    ]);
  });

  it('the same codes changed by SQL: the invoice items’ digests follow, with no entries of theirs', async () => {
    const b = await billed();
    await expectDigestsOf(b.org.api, 'invoice_item', await invoiceItems(b));
    const cursor = await headCursor(b.org.api);
    await db()('tax_codes').where({ organization_id: b.org.id, id: b.taxCode.id }).update({ code: 'ITX-3' });
    await db()('phases').where({ organization_id: b.org.id, id: b.phase.id }).update({ code: '03-320' });
    await db()('cost_categories').where({ organization_id: b.org.id, id: b.category.id }).update({ code: 'MAT-3' });
    const items = await invoiceItems(b);
    expect((items[0] as unknown as Record<string, unknown>).taxCode).to.equal('ITX-3');
    await expectDigestsOf(b.org.api, 'invoice_item', items);
    expect(await entriesAfter(b.org.api, cursor)).to.deep.equal([
      'tax_code.updated code database',
      'phase.updated code database',
      'cost_category.updated code database',
    ]);
  });

  it('an order’s purchaseOrderNumber changed through the API: its releases’ digests follow, with no entries of theirs', async () => {
    const r = await released();
    await expectDigestsOf(r.org.api, 'release', await releases(r));
    const cursor = await headCursor(r.org.api);
    expectStatus(await r.org.api.patch(`/orders/${r.orders[0]}`, { purchaseOrderNumber: 'SPO-1A' }), 200);
    const reads = await releases(r);
    expect(reads.map((x) => x.purchaseOrderNumber)).to.deep.equal(['SPO-1A', 'SPO-2']);
    await expectDigestsOf(r.org.api, 'release', reads);
    // The order's own entry (an active order's edit records a change order too), none of the releases'.
    expect(await entriesAfter(r.org.api, cursor)).to.deep.equal(['change_order.created  api_key', 'order.updated versionNumber,purchaseOrderNumber api_key']);
  });

  it('an order’s purchase order number changed by SQL: its releases’ digests follow, with no entries of theirs', async () => {
    const r = await released();
    await expectDigestsOf(r.org.api, 'release', await releases(r));
    const cursor = await headCursor(r.org.api);
    await db()('orders').where({ organization_id: r.org.id, id: r.orders[1] }).update({ purchase_order_number: 'SPO-2B' });
    const reads = await releases(r);
    expect(reads.map((x) => x.purchaseOrderNumber)).to.deep.equal(['SPO-1', 'SPO-2B']);
    await expectDigestsOf(r.org.api, 'release', reads);
    expect(await entriesAfter(r.org.api, cursor)).to.deep.equal(['order.updated purchaseOrderNumber database']);
  });

  it('an order deleted and brought back by SQL: its releases leave the digests and come back with it', async () => {
    const r = await released();
    const allReleases = async () => expectStatus(await r.org.api.get('/releases'), 200).body.data as { id: string }[];
    await expectDigestsOf(r.org.api, 'release', await allReleases());
    const cursor = await headCursor(r.org.api);
    await db()('orders').where({ organization_id: r.org.id, id: r.orders[1] }).update({ deleted_at: db().fn.now() });
    const without = await allReleases();
    expect(without).to.have.length(1);
    await expectDigestsOf(r.org.api, 'release', without);
    // An operator's undo: the row is live again, and so are the releases its read excluded.
    await db()('orders').where({ organization_id: r.org.id, id: r.orders[1] }).update({ deleted_at: null });
    const back = await allReleases();
    expect(back).to.have.length(2);
    await expectDigestsOf(r.org.api, 'release', back);
    // The order's entries and its items' (a deleted order's items leave the reads with it), none of the releases'.
    const entries = await entriesAfter(r.org.api, cursor);
    expect(entries.filter((e) => e.startsWith('order.'))).to.deep.equal(['order.deleted  database', 'order.created  database']);
    expect(entries.filter((e) => !/^(order|item)\./.test(e))).to.deep.equal([]);
  });
});
