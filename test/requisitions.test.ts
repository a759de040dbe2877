import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { Basics, basics, order, requisition, sleep } from './support/billing-fixtures';
import { itDirect, PRISM } from './support/proxy';

describe('requisitions', () => {
  let org: TestOrg;
  let b: Basics;
  const ids: Record<string, string> = {};
  const identifiers = (list: { identifier: string }[]) => list.map((r) => r.identifier);

  before(async () => {
    org = await newOrg();
    b = await basics(org);
    const { orderId, itemId } = await order(org, b);
    ids.open = await requisition(
      org,
      b,
      {
        identifier: 'REQ-001',
        state: 'OPEN',
        title: 'Copper rough-in',
        notes: 'North gate',
        delivery_location_id: b.locationId,
        need_by_date_category: 'DATE',
        need_by_date_day: '2026-11-10T00:00:00Z',
        need_by_window: 'Morning (7am - 11am)',
        sent_at: '2026-11-02T14:20:00Z',
        vendor_contact_id: 'vc-17',
      },
      [
        {
          line_number: 2,
          description: 'Elbows',
          quantity: 60,
          state: 'REJECTED',
          rejection_reason: 'DUPLICATE',
          rejection_message: 'On PO already',
          qty_requested: 60,
          qty_rejected_by_purchasing: 60,
        },
        {
          line_number: 1,
          description: 'Pipe',
          quantity: 40,
          quantity_delivered: 24,
          state: 'ADDED_TO_PO',
          line_item_id: itemId,
          purchase_order_id: orderId,
          allow_substitution: true,
          manufacturer_part_number: 'LH04020',
          universal_product_code: '039923040209',
          units_of_measure: 'EA',
          catalog_id: 'CAT-1',
          integration_data: JSON.stringify({ erp: 'PR-1' }),
          qty_added_to_po: 40,
          qty_requested: 40,
          qty_acknowledged_by_purchasing: 40,
          notes: 'cut to 10 ft',
        },
        { line_number: 3, description: 'Studs', quantity: 100, state: 'ADDED_TO_WAREHOUSE_REQUEST', qty_requested: 100, qty_added_to_warehouse_request: 100 },
      ],
    );
    ids.draft = await requisition(org, b, { identifier: 'REQ-002', state: 'DRAFT', title: 'Studs', need_by_date_day: '2026-11-20T00:00:00Z' });
    ids.review = await requisition(org, b, { identifier: 'REQ-003', state: 'IN_REVIEW', need_by_date_category: 'HOLD_FOR_RELEASE' });
    ids.deleted = await requisition(org, b, { identifier: 'REQ-DEL', state: 'OPEN', deleted_at: new Date(), deleted_by_id: b.userId });
  });

  it('returns every field of a requisition', async () => {
    const r = expectStatus(await org.api.get(`/requisitions/${ids.open}`), 200).body;
    expect(r).to.include({
      id: ids.open,
      identifier: 'REQ-001',
      state: 'OPEN',
      title: 'Copper rough-in',
      notes: 'North gate',
      jobId: b.jobId,
      orderingAgentId: b.userId,
      createdById: b.otherUserId,
      deliveryLocationId: b.locationId,
      needByDateCategory: 'DATE',
      needByDateDay: '2026-11-10T00:00:00.000Z',
      needByWindow: 'Morning (7am - 11am)',
      sentAt: '2026-11-02T14:20:00.000Z',
      scheduledAt: null,
      manuallyClosedAt: null,
      deletedAt: null,
      deletedById: null,
      vendorContactId: 'vc-17',
      updatedById: null,
    });
  });

  it('never lists or reads deleted requisitions', async () => {
    expect(identifiers(expectStatus(await org.api.get('/requisitions?orderBy=identifier'), 200).body)).to.deep.equal(['REQ-001', 'REQ-002', 'REQ-003']);
    problemOf(await org.api.get(`/requisitions/${ids.deleted}`), 404);
    problemOf(await org.api.get(`/requisitions/${ids.deleted}/items`), 404);
    problemOf(await org.api.patch(`/requisitions/${ids.deleted}/updateRequisitionState?state=CLOSED`), 404);
  });

  it('orders and filters on the listed fields', async () => {
    const get = async (q: string) => identifiers(expectStatus(await org.api.get(`/requisitions?${q}`), 200).body);
    expect(await get('orderBy=identifier&direction=DESC')).to.deep.equal(['REQ-003', 'REQ-002', 'REQ-001']);
    expect(await get('orderBy=needByDateDay&direction=ASC&filter[needByDateDay_gt]=2026-01-01T00:00:00.000Z')).to.deep.equal(['REQ-001', 'REQ-002']);
    for (const f of ['createdAt', 'id', 'updatedAt']) expect(await get(`orderBy=${f}`)).to.have.length(3);
    expect(await get('filter[state]=IN_REVIEW')).to.deep.equal(['REQ-003']);
    expect(await get('filter[state_in]=OPEN,DRAFT')).to.deep.equal(['REQ-001', 'REQ-002']);
    expect(await get('filter[title_contains]=copper')).to.deep.equal(['REQ-001']);
    expect(await get('filter[identifier]=REQ-002')).to.deep.equal(['REQ-002']);
    expect(await get(`filter[id]=${ids.review}`)).to.deep.equal(['REQ-003']);
    expect(await get('filter[createdAt_lt]=2000-01-01T00:00:00.000Z&filter[updatedAt_gt]=2000-01-01T00:00:00.000Z')).to.deep.equal([]);
    problemOf(await org.api.get('/requisitions?filter[notes]=x'), 400);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=title'), async () => {
    problemOf(await org.api.get('/requisitions?orderBy=title'), 400);
  });

  it('lists items by lineNumber with every field and the states object', async () => {
    const items = expectStatus(await org.api.get(`/requisitions/${ids.open}/items`), 200).body;
    expect(items.map((i: { lineNumber: number }) => i.lineNumber)).to.deep.equal([1, 2, 3]);
    expect(items[0]).to.include({
      requisitionId: ids.open,
      description: 'Pipe',
      quantity: 40,
      quantityDelivered: 24,
      state: 'ADDED_TO_PO',
      allowSubstitution: true,
      manufacturerPartNumber: 'LH04020',
      universalProductCode: '039923040209',
      unitsOfMeasure: 'EA',
      catalogId: 'CAT-1',
      notes: 'cut to 10 ft',
      createdById: b.otherUserId,
      rejectionReason: null,
    });
    expect(items[0].lineItemId).to.be.a('string');
    expect(items[0].purchaseOrderId).to.be.a('string');
    expect(items[0].integrationData).to.deep.equal({ erp: 'PR-1' });
    expect(items[0].states).to.deep.equal({ AddedToPO: 40, Requested: 40, RejectedByPurchasing: 0, AddedToWarehouseRequest: 0, AcknowledgedByPurchasing: 40 });
    expect(items[1]).to.include({
      state: 'REJECTED',
      rejectionReason: 'DUPLICATE',
      rejectionMessage: 'On PO already',
      lineItemId: null,
      purchaseOrderId: null,
    });
    expect(items[1].states).to.include({ RejectedByPurchasing: 60, Requested: 60 });
    const get = async (q: string) => expectStatus(await org.api.get(`/requisitions/${ids.open}/items?${q}`), 200).body.map((i) => i.description);
    expect(await get('orderBy=lineNumber&direction=DESC')).to.deep.equal(['Studs', 'Elbows', 'Pipe']);
    expect(await get('filter[state]=REJECTED')).to.deep.equal(['Elbows']);
    expect(await get('filter[description_starts_with]=p')).to.deep.equal(['Pipe']);
    expect(await get('filter[notes_contains]=10 ft')).to.deep.equal(['Pipe']);
    expect(await get('limit=1&offset=2')).to.deep.equal(['Studs']);
  });

  itDirect('rejects an unlisted orderBy and a state outside the enum for items', PRISM.invalidRequest('orderBy=description, filter[state]=DONE'), async () => {
    problemOf(await org.api.get(`/requisitions/${ids.open}/items?orderBy=description`), 400);
    problemOf(await org.api.get(`/requisitions/${ids.open}/items?filter[state]=DONE`), 400);
  });

  it('sets the state: CLOSED stamps manuallyClosedAt and updatedAt; another state clears it', async () => {
    const before = expectStatus(await org.api.get(`/requisitions/${ids.draft}`), 200).body;
    await sleep(5);
    const closed = expectStatus(await org.api.patch(`/requisitions/${ids.draft}/updateRequisitionState?state=CLOSED`), 200).body;
    expect(closed).to.include({ id: ids.draft, state: 'CLOSED', updatedById: org.userId, title: 'Studs' });
    expect(closed.manuallyClosedAt).to.match(/Z$/);
    expect(closed.updatedAt > before.updatedAt).to.equal(true);
    expect(closed.manuallyClosedAt).to.equal(closed.updatedAt);
    expect(expectStatus(await org.api.get(`/requisitions/${ids.draft}`), 200).body.state).to.equal('CLOSED');
    const reopened = expectStatus(await org.api.patch(`/requisitions/${ids.draft}/updateRequisitionState?state=OPEN`), 200).body;
    expect(reopened).to.include({ state: 'OPEN', manuallyClosedAt: null });
    expect(reopened.updatedAt >= closed.updatedAt).to.equal(true);
  });

  itDirect('requires a valid state', PRISM.invalidRequest('no state, state=DONE'), async () => {
    const p = problemOf(await org.api.patch(`/requisitions/${ids.review}/updateRequisitionState`), 400);
    expect(p.errors[0].field).to.equal('query.state');
    const q = problemOf(await org.api.patch(`/requisitions/${ids.review}/updateRequisitionState?state=DONE`), 400);
    expect(q.errors[0].field).to.equal('query.state');
    expect(expectStatus(await org.api.get(`/requisitions/${ids.review}`), 200).body.state).to.equal('IN_REVIEW');
  });

  it('answers 404 for the state of a missing requisition', async () => {
    problemOf(await org.api.patch(`/requisitions/${MISSING_ID}/updateRequisitionState?state=OPEN`), 404);
  });

  it('answers foreign requisitions exactly like missing ones', async () => {
    const intruder = await newOrg();
    await expectForeignLikeMissing(intruder, 'GET', `/requisitions/${ids.review}`, `/requisitions/${MISSING_ID}`);
    await expectForeignLikeMissing(intruder, 'GET', `/requisitions/${ids.open}/items`, `/requisitions/${MISSING_ID}/items`);
    await expectForeignLikeMissing(
      intruder,
      'PATCH',
      `/requisitions/${ids.review}/updateRequisitionState?state=CLOSED`,
      `/requisitions/${MISSING_ID}/updateRequisitionState?state=CLOSED`,
    );
    expect(expectStatus(await org.api.get(`/requisitions/${ids.review}`), 200).body.state).to.equal('IN_REVIEW');
    expect(expectStatus(await intruder.api.get('/requisitions'), 200).body).to.deep.equal([]);
  });
});
