import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { Basics, basics, file, order, receipt, sleep } from './support/billing-fixtures';
import { harness } from './support/harness';
import { deleteDeliveryReceipt } from '../src/resources/delivery-receipts/store';
import { itDirect, PRISM } from './support/proxy';

describe('delivery receipts', () => {
  let org: TestOrg;
  let b: Basics;
  let orderId: string;
  let itemId: string;
  const ids: Record<string, string> = {};
  const idents = (list: { identifier: string | null }[]) => list.map((r) => r.identifier).sort();

  before(async () => {
    org = await newOrg();
    b = await basics(org);
    ({ orderId, itemId } = await order(org, b));
    const slip = await file(org, 'packing-slip.pdf');
    const photo = await file(org, 'crushed-box.jpg');
    ids.clean = await receipt(
      org,
      b,
      { identifier: 'DR-CLEAN', order_id: orderId, notes: 'All good', notified_contacts: ['maria@builders.example'] },
      [{ description: 'Copper pipe', item_id: itemId, quantity: 40, quantity_received_this_receipt: 40, issues: { NO_ISSUES: 40 } }],
      [slip],
    );
    ids.damaged = await receipt(
      org,
      b,
      { identifier: 'DR-DAMAGED', order_id: orderId },
      [
        { description: 'Elbows', quantity: 12, quantity_received_this_receipt: 12, units_of_measure: 'BOX', issues: { DAMAGED: 2, NO_ISSUES: 10 } },
        { description: 'Tees', quantity: 5, quantity_received_this_receipt: 3, issues: { BACKORDERED: 2, NO_ISSUES: 3 } },
      ],
      [photo, slip],
    );
    ids.missing = await receipt(org, b, { identifier: 'DR-MISSING', state: 'DRAFT' }, [
      { description: 'Valves', quantity: 4, quantity_received_this_receipt: 0, issues: { MISSING: 4 } },
    ]);
    ids.wrong = await receipt(org, b, { identifier: 'DR-WRONG' }, [
      { description: 'Caps', quantity: 4, quantity_received_this_receipt: 4, issues: { WRONG_ITEM: 4 } },
    ]);
    ids.empty = await receipt(org, b, { identifier: 'DR-EMPTY' });
  });

  it('returns every field, with issues, attachments, release null and integration fields', async () => {
    const r = expectStatus(await org.api.get(`/deliveries/${ids.damaged}`), 200).body;
    expect(r).to.include({
      id: ids.damaged,
      identifier: 'DR-DAMAGED',
      purchaseOrder: orderId,
      state: 'SUBMITTED',
      deleted: false,
      archivedAt: null,
      createdBy: b.userId,
    });
    expect(r.release).to.equal(null);
    expect(r.warehouseRequest).to.equal(null);
    expect(r.issues).to.deep.equal(['DAMAGED', 'BACKORDERED']);
    expect(r).to.include({ integrationState: 'NOT_LINKED', integrationMessage: null, integrationLastSync: null });
    expect(r.attachments.map((f) => f.name)).to.have.members(['crushed-box.jpg', 'packing-slip.pdf']);
    expect(r.attachments[0]).to.have.keys(['id', 'name', 'url', 'createdAt', 'updatedAt']);
    const clean = expectStatus(await org.api.get(`/deliveries/${ids.clean}`), 200).body;
    expect(clean.issues).to.deep.equal(['NO_ISSUES']);
    expect(clean.notifiedContacts).to.deep.equal(['maria@builders.example']);
    const loose = expectStatus(await org.api.get(`/deliveries/${ids.missing}`), 200).body;
    expect(loose).to.include({ purchaseOrder: null, state: 'DRAFT' });
    expect(loose.issues).to.deep.equal(['MISSING']);
  });

  it('lists items with their issues object', async () => {
    const items = expectStatus(await org.api.get(`/deliveries/${ids.damaged}/items`), 200).body;
    expect(items).to.have.length(2);
    const elbows = items.find((i: { description: string }) => i.description === 'Elbows');
    expect(elbows).to.include({
      deliveryReceiptId: ids.damaged,
      quantity: 12,
      quantityReceivedThisReceipt: 12,
      unitsOfMeasure: 'BOX',
      itemId: null,
      notes: null,
    });
    expect(elbows!.issues).to.deep.equal({ MISSING: 0, DAMAGED: 2, NO_ISSUES: 10, WRONG_ITEM: 0, BACKORDERED: 0 });
    const clean = expectStatus(await org.api.get(`/deliveries/${ids.clean}/items`), 200).body;
    expect(clean[0].itemId).to.equal(itemId);
    const page = expectStatus(await org.api.get(`/deliveries/${ids.damaged}/items?limit=1&offset=1&orderBy=id`), 200).body;
    expect(page.map((i: { id: string }) => i.id)).to.deep.equal([[...items].sort((x, y) => (x.id < y.id ? -1 : 1))[1].id]);
  });

  it('filters by issue type: omitted means NO_ISSUES, ALL means every receipt, lists match any kind', async () => {
    const get = async (q: string) => idents(expectStatus(await org.api.get(`/deliveries${q}`), 200).body);
    expect(await get('')).to.deep.equal(['DR-CLEAN', 'DR-EMPTY']);
    expect(await get('?filter[issueType_in]=NO_ISSUES')).to.deep.equal(['DR-CLEAN', 'DR-EMPTY']);
    expect(await get('?filter[issueType_in]=ALL')).to.deep.equal(['DR-CLEAN', 'DR-DAMAGED', 'DR-EMPTY', 'DR-MISSING', 'DR-WRONG']);
    expect(await get('?filter[issueType_in]=MISSING,DAMAGED')).to.deep.equal(['DR-DAMAGED', 'DR-MISSING']);
    expect(await get('?filter[issueType_in][]=WRONG_ITEM&filter[issueType_in][]=BACKORDERED')).to.deep.equal(['DR-DAMAGED', 'DR-WRONG']);
    expect(await get('?filter[issueType_in]=NO_ISSUES,WRONG_ITEM')).to.deep.equal(['DR-CLEAN', 'DR-EMPTY', 'DR-WRONG']);
    const p = problemOf(await org.api.get('/deliveries?filter[issueType_in]=BROKEN'), 400);
    expect(p.errors[0].field).to.match(/issueType_in/);
    problemOf(await org.api.get('/deliveries?filter[issueType]=MISSING'), 400);
  });

  it('orders and filters by every allowed field', async () => {
    const all = '&filter[issueType_in]=ALL';
    const desc = expectStatus(await org.api.get(`/deliveries?orderBy=identifier&direction=DESC${all}`), 200).body.map((r) => r.identifier);
    expect(desc).to.deep.equal(['DR-WRONG', 'DR-MISSING', 'DR-EMPTY', 'DR-DAMAGED', 'DR-CLEAN']);
    for (const f of ['id', 'identifier', 'notes', 'createdAt', 'updatedAt', 'archivedAt', 'state']) {
      expectStatus(await org.api.get(`/deliveries?orderBy=${f}${all}`), 200);
    }
    expect(idents(expectStatus(await org.api.get(`/deliveries?filter[state]=DRAFT${all}`), 200).body)).to.deep.equal(['DR-MISSING']);
    expect(idents(expectStatus(await org.api.get(`/deliveries?filter[notes_contains]=good${all}`), 200).body)).to.deep.equal(['DR-CLEAN']);
    expect(idents(expectStatus(await org.api.get(`/deliveries?filter[identifier_starts_with]=DR-W${all}`), 200).body)).to.deep.equal(['DR-WRONG']);
    expect(idents(expectStatus(await org.api.get(`/deliveries?filter[id]=${ids.empty}${all}`), 200).body)).to.deep.equal(['DR-EMPTY']);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=purchaseOrder'), async () => {
    problemOf(await org.api.get('/deliveries?orderBy=purchaseOrder'), 400);
  });

  it('hides deleted receipts unless includeDeleted, and finds deletions with updatedAt_gt', async () => {
    const id = await receipt(org, b, { identifier: 'DR-GONE' });
    const before = expectStatus(await org.api.get(`/deliveries/${id}`), 200).body;
    await sleep(5);
    await deleteDeliveryReceipt(harness().db, org.id, id);
    problemOf(await org.api.get(`/deliveries/${id}`), 404);
    problemOf(await org.api.get(`/deliveries/${id}/items`), 404);
    expect(idents(expectStatus(await org.api.get('/deliveries?filter[issueType_in]=ALL'), 200).body)).to.not.include('DR-GONE');
    const since = encodeURIComponent(before.updatedAt);
    const changed = expectStatus(await org.api.get(`/deliveries?includeDeleted=true&filter[updatedAt_gt]=${since}&filter[issueType_in]=ALL`), 200).body;
    expect(changed.map((r: { id: string }) => r.id)).to.deep.equal([id]);
    expect(changed[0]).to.include({ deleted: true });
    expect(changed[0].archivedAt).to.match(/Z$/);
    expect(changed[0].updatedAt > before.updatedAt).to.equal(true);
    const read = expectStatus(await org.api.get(`/deliveries/${id}?includeDeleted=true`), 200).body;
    expect(read.deleted).to.equal(true);
  });

  it('lists the receipts of an order with the same filters, 404 for a missing or deleted order', async () => {
    const res = expectStatus(await org.api.get(`/orders/${orderId}/deliveries?filter[issueType_in]=ALL&orderBy=identifier`), 200).body;
    expect(res.map((r) => r.identifier)).to.deep.equal(['DR-CLEAN', 'DR-DAMAGED']);
    expect(idents(expectStatus(await org.api.get(`/orders/${orderId}/deliveries`), 200).body)).to.deep.equal(['DR-CLEAN']);
    expect(idents(expectStatus(await org.api.get(`/orders/${orderId}/deliveries?filter[issueType_in]=DAMAGED`), 200).body)).to.deep.equal(['DR-DAMAGED']);
    const gone = await order(org, b, true);
    problemOf(await org.api.get(`/orders/${gone.orderId}/deliveries`), 404);
    problemOf(await org.api.get(`/orders/${MISSING_ID}/deliveries`), 404);
    problemOf(await org.api.get('/orders/not-an-id/deliveries'), 404);
  });

  it('stores integration states; ERROR needs a message; LINKED stamps the last sync; updatedAt stays', async () => {
    const id = await receipt(org, b, { identifier: 'DR-SYNC' });
    const before = expectStatus(await org.api.get(`/deliveries/${id}`), 200).body;
    const p = problemOf(await org.api.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'ERROR' }), 400);
    expect(p.errors[0].field).to.equal('body.integrationMessage');
    problemOf(await org.api.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'ERROR', integrationMessage: '  ' }), 400);
    const err = expectStatus(
      await org.api.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'ERROR', integrationMessage: 'Vendor not mapped' }),
      200,
    ).body;
    expect(err).to.include({ id, integrationState: 'ERROR', integrationMessage: 'Vendor not mapped', integrationLastSync: null, updatedAt: before.updatedAt });
    const linked = expectStatus(await org.api.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'LINKED' }), 200).body;
    expect(linked).to.include({ integrationState: 'LINKED', integrationMessage: null });
    expect(linked.integrationLastSync).to.match(/Z$/);
    expect(expectStatus(await org.api.get(`/deliveries/${id}`), 200).body.integrationState).to.equal('LINKED');
    problemOf(await org.api.post(`/deliveries/${MISSING_ID}/updateIntegrationState`, { integrationState: 'LINKED' }), 404);
  });

  itDirect('requires a listed integration state', PRISM.invalidRequest('an empty body, an unlisted integrationState'), async () => {
    const id = ids.empty;
    problemOf(await org.api.unchecked.post(`/deliveries/${id}/updateIntegrationState`, {}), 400);
    problemOf(await org.api.unchecked.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'SYNCED' }), 400);
  });

  it('answers foreign receipts and orders exactly like missing ones', async () => {
    const intruder = await newOrg();
    await expectForeignLikeMissing(intruder, 'GET', `/deliveries/${ids.clean}`, `/deliveries/${MISSING_ID}`);
    await expectForeignLikeMissing(intruder, 'GET', `/deliveries/${ids.clean}/items`, `/deliveries/${MISSING_ID}/items`);
    await expectForeignLikeMissing(intruder, 'POST', `/deliveries/${ids.clean}/updateIntegrationState`, `/deliveries/${MISSING_ID}/updateIntegrationState`, {
      integrationState: 'LINKED',
    });
    await expectForeignLikeMissing(intruder, 'GET', `/orders/${orderId}/deliveries`, `/orders/${MISSING_ID}/deliveries`);
    expect(expectStatus(await intruder.api.get('/deliveries?filter[issueType_in]=ALL'), 200).body).to.deep.equal([]);
    expect(expectStatus(await org.api.get(`/deliveries/${ids.clean}`), 200).body.integrationState).to.equal('NOT_LINKED');
  });
});
