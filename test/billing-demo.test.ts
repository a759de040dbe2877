import { expect } from 'chai';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { harness } from './support/harness';
import { loadDemoData } from '../seeds/demo';

describe('receiving and billing demo data', () => {
  let org: TestOrg;
  before(async function () {
    this.timeout(60_000);
    org = await newOrg();
    await loadDemoData(harness().db, org.id);
  });

  const values = <T>(list: T[], f: (x: T) => unknown) => [...new Set(list.map(f).flat())].sort();

  it('has requisitions in every state with items in every item state', async () => {
    const reqs = expectStatus(await org.api.get('/requisitions'), 200).body;
    expect(values(reqs, (r: { state: string }) => r.state)).to.deep.equal(['ACKNOWLEDGED', 'CLOSED', 'DRAFT', 'IN_REVIEW', 'OPEN', 'PARTIALLY_FULFILLED']);
    const states = new Set<string>();
    for (const r of reqs) for (const i of expectStatus(await org.api.get(`/requisitions/${r.id}/items`), 200).body) states.add(i.state);
    expect([...states].sort()).to.deep.equal(['ACKNOWLEDGED', 'ADDED_TO_PO', 'ADDED_TO_WAREHOUSE_REQUEST', 'PARTIALLY_ADDED_TO_PO', 'REJECTED', 'UNPROCESSED']);
  });

  it('has warehouse requests in every state with items in every item state', async () => {
    const wrs = expectStatus(await org.api.get('/warehouse-requests'), 200).body;
    expect(values(wrs, (r: { state: string }) => r.state)).to.deep.equal(['ACKNOWLEDGED', 'DRAFT', 'SENT']);
    const states = new Set<string>();
    for (const r of wrs) for (const i of expectStatus(await org.api.get(`/warehouse-requests/${r.id}/items`), 200).body) states.add(i.state);
    expect([...states].sort()).to.deep.equal(['CANCELLED', 'DRAFT', 'PARTIAL_PICK', 'PICKED', 'REQUESTED', 'SHIPPED', 'UNAVAILABLE']);
  });

  it("gives every warehouse-request item the requisition it came from, of the request's job (requisitionId is not optional in the spec)", async () => {
    const wrs = expectStatus(await org.api.get('/warehouse-requests'), 200).body;
    const reqs = expectStatus(await org.api.get('/requisitions'), 200).body as { id: string; jobId: string }[];
    let n = 0;
    for (const wr of wrs) {
      for (const item of expectStatus(await org.api.get(`/warehouse-requests/${wr.id}/items`), 200).body) {
        n++;
        const from = reqs.find((r) => r.id === item.requisitionId);
        expect(from, `${wr.identifier} line ${item.lineNumber}`).to.not.equal(undefined);
        expect(from!.jobId, `${wr.identifier} line ${item.lineNumber}`).to.equal(wr.jobId);
      }
    }
    expect(n).to.equal(7);
  });

  it('has delivery receipts of every kind', async () => {
    const all = expectStatus(await org.api.get('/deliveries?filter[issueType_in]=ALL&includeDeleted=true'), 200).body;
    expect(values(all, (r: { issues: string[] }) => r.issues)).to.deep.equal(['BACKORDERED', 'DAMAGED', 'MISSING', 'NO_ISSUES', 'WRONG_ITEM']);
    expect(values(all, (r: { state: string }) => r.state)).to.deep.equal(['DRAFT', 'SUBMITTED']);
    expect(values(all, (r: { integrationState: string }) => r.integrationState)).to.deep.equal(['ERROR', 'LINKED', 'LINKING', 'NOT_LINKED', 'OUT_OF_SYNC']);
    expect(all.some((r: { deleted: boolean }) => r.deleted)).to.equal(true);
    expect(all.some((r: { purchaseOrder: string | null }) => r.purchaseOrder === null)).to.equal(true);
    expect(all.some((r: { attachments: unknown[] }) => r.attachments.length > 0)).to.equal(true);
  });

  it('has invoices in every state, category and integration state, with items with and without exceptions', async () => {
    const inv = expectStatus(await org.api.get('/invoices?includeDeleted=true'), 200).body;
    expect(values(inv, (i: { state: string }) => i.state)).to.deep.equal(['APPROVED', 'CLOSED', 'INBOX', 'PENDING']);
    expect(values(inv, (i) => i.category)).to.deep.equal(['genContractor', 'material', 'miscellaneous', 'rentals']);
    expect(values(inv, (i: { integrationState: string }) => i.integrationState)).to.deep.equal(['ERROR', 'LINKED', 'LINKING', 'NOT_LINKED']);
    expect(values(inv, (i: { type: string }) => i.type)).to.deep.equal(['CREDIT_MEMO', 'INVOICE']);
    const items = expectStatus(await org.api.get('/invoice-items?limit=2500'), 200).body.data;
    expect(values(items, (i: { hasException: boolean }) => i.hasException)).to.deep.equal([false, true]);
  });
});
