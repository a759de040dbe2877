import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { MISSING_ID } from './support/tenancy';
import { ageOrder, insertVendor, makeOrder, softDeleteOrder } from './support/purchasing-fixtures';
import { updateOrder } from '../src/resources/orders/store';
import { ROOT } from '../src/paths';

const CLI = join(ROOT, 'dist', 'src', 'admin', 'cli.js');

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: harness().databaseUrl } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as unknown as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('seller order lookup', function () {
  this.timeout(60_000);
  let buyer: TestOrg;
  let seller: TestOrg;
  let stranger: TestOrg;
  let linkedVendor: string;
  let unlinkedVendor: string;
  let exact: string;
  const path = (buyerId: string, po: string) => `/order/buyerId/${buyerId}/purchaseOrderNumber/${encodeURIComponent(po)}` as const;

  before(async () => {
    buyer = await newOrg('Summit Ridge Construction');
    seller = await newOrg('Ferguson Enterprises');
    stranger = await newOrg('Graybar Electric');
    linkedVendor = await insertVendor(buyer.id, 'V-FERGUSON');
    unlinkedVendor = await insertVendor(buyer.id, 'V-GRAYBAR', { name: 'Graybar Electric' });
    const res = await admin('vendor', 'link', '--org', buyer.id, '--vendor', 'V-FERGUSON', '--seller-org', seller.id);
    expect(res.code, res.stderr).to.equal(0);
    expect(JSON.parse(res.stdout)).to.deep.include({ vendor: { id: linkedVendor, code: 'V-FERGUSON' }, sellerOrganization: { id: seller.id } });
    exact = await makeOrder(buyer, { vendor_id: linkedVendor, purchase_order_number: 'J-1042/0007', state: 'ACTIVE' });
  });

  it("finds the buyer's order sent to a vendor linked to the caller by its exact PO number", async () => {
    const o = expectStatus(await seller.api.get(path(buyer.id, 'J-1042/0007')), 200).body;
    expect(o).to.include({ id: exact, purchaseOrderNumber: 'J-1042/0007', vendorId: linkedVendor });
  });

  it('falls back to a fuzzy match ignoring whitespace, hyphens, slashes, dots, underscores, # and case', async () => {
    for (const po of ['j1042 0007', 'J 1042-0007', '#J.1042_0007', 'j-1042-0007 ']) {
      expect(expectStatus(await seller.api.get(path(buyer.id, po)), 200).body.id, po).to.equal(exact);
    }
    problemOf(await seller.api.get(path(buyer.id, 'J-1042-0008')), 404);
    problemOf(await seller.api.get(path(buyer.id, '---')), 404);
  });

  it('prefers the exact match, then the most recently updated order', async () => {
    const b = await newOrg();
    const v = await insertVendor(b.id, 'V-FERG');
    await harness().db('vendors').where({ id: v }).update({ seller_organization_id: seller.id });
    const fuzzyNewer = await makeOrder(b, { vendor_id: v, purchase_order_number: 'po 100', state: 'ACTIVE' });
    const exactOlder = await makeOrder(b, { vendor_id: v, purchase_order_number: 'PO-100', state: 'CANCELLED' });
    await ageOrder(b.id, exactOlder, 3);
    expect(expectStatus(await seller.api.get(path(b.id, 'PO-100')), 200).body.id).to.equal(exactOlder);
    const older = await makeOrder(b, { vendor_id: v, purchase_order_number: 'PO/200', state: 'ACTIVE' });
    const newer = await makeOrder(b, { vendor_id: v, purchase_order_number: 'po.200', state: 'COMPLETE' });
    // Explicit update times: two orders made one after the other may share one.
    await ageOrder(b.id, older, 2);
    await ageOrder(b.id, newer, 1);
    expect(expectStatus(await seller.api.get(path(b.id, 'PO 200')), 200).body.id).to.equal(newer);
    await updateOrder(harness().db, b.id, b.userId, older, { notes: 'touched' });
    expect(expectStatus(await seller.api.get(path(b.id, 'PO 200')), 200).body.id).to.equal(older);
    expect(fuzzyNewer).to.be.a('string');
  });

  it('considers only orders updated within the last 180 days', async () => {
    const old = await makeOrder(buyer, { vendor_id: linkedVendor, purchase_order_number: 'OLD-1', state: 'ACTIVE' });
    await ageOrder(buyer.id, old, 179);
    expectStatus(await seller.api.get(path(buyer.id, 'OLD-1')), 200);
    await ageOrder(buyer.id, old, 181);
    problemOf(await seller.api.get(path(buyer.id, 'OLD-1')), 404);
  });

  it('answers 404 alike for an unlinked vendor, a foreign seller, an unknown buyer, drafts and deleted orders', async () => {
    await makeOrder(buyer, { vendor_id: unlinkedVendor, purchase_order_number: 'GB-1', state: 'ACTIVE' });
    const draft = await makeOrder(buyer, { vendor_id: linkedVendor, purchase_order_number: 'DR-1', state: 'DRAFT' });
    const gone = await makeOrder(buyer, { vendor_id: linkedVendor, purchase_order_number: 'DEL-1', state: 'ACTIVE' });
    await softDeleteOrder(buyer.id, gone);
    const messages = [];
    for (const [client, buyerId, po] of [
      [seller, buyer.id, 'GB-1'],
      [seller, buyer.id, 'DR-1'],
      [seller, buyer.id, 'DEL-1'],
      [stranger, buyer.id, 'J-1042/0007'],
      [buyer, buyer.id, 'J-1042/0007'],
      [seller, MISSING_ID, 'J-1042/0007'],
      [seller, 'not-an-id', 'J-1042/0007'],
    ] as const) {
      const p = problemOf(await client.api.get(path(buyerId, po)), 404);
      messages.push(p.errors[0].message.replace(buyerId, '<buyer>').replace(po, '<po>'));
    }
    expect(new Set(messages).size).to.equal(1);
    expect(draft).to.be.a('string');
  });

  it('vendor link fails clearly on an unknown vendor or organization', async () => {
    for (const args of [
      ['--org', buyer.id, '--vendor', 'V-NOPE', '--seller-org', seller.id],
      ['--org', MISSING_ID, '--vendor', 'V-FERGUSON', '--seller-org', seller.id],
      ['--org', buyer.id, '--vendor', 'V-FERGUSON', '--seller-org', 'nope'],
      ['--org', buyer.id, '--vendor', 'V-FERGUSON'],
    ]) {
      const res = await admin('vendor', 'link', ...args);
      expect(res.code, args.join(' ')).to.not.equal(0);
      expect(res.stderr).to.match(/^error: /);
    }
  });
});
