import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg, PathOf } from './support/client';
import { headCursor, readAll } from './support/feed';
import * as billing from './support/billing-fixtures';
import { makeOrder } from './support/release-fixtures';

const ORDER = { distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

describe('externalId: the integrator’s own ids on orders, items, invoices, receipts, requisitions and change orders', () => {
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    org = await newOrg();
    other = await newOrg();
  });

  /** The ids a list answers (a plain array, or the bulk lists' page `data`). */
  const ids = async (path: PathOf<'get'>) => {
    const body: any = expectStatus(await org.api.get(path), 200).body;
    return ((Array.isArray(body) ? body : body.data) as { id: string }[]).map((o) => o.id);
  };

  it('sets an order’s externalId on create and PATCH, unique per organization (409 naming the other order), found by filter, in the feed', async () => {
    const cursor = await headCursor(org.api);
    const a = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'EXT-1', externalId: 'ERP-PO-1' }), 201).body;
    expect(a.externalId).to.equal('ERP-PO-1');
    // A retried create that lost its answer is found by its id instead of duplicated.
    const dup = problemOf(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'EXT-1', externalId: 'ERP-PO-1' }), 409);
    expect(dup.errors[0]).to.include({ field: 'body.externalId', rule: 'unique' });
    expect(dup.errors[0].message).to.contain(a.id);
    expect(await ids('/orders?filter[externalId]=ERP-PO-1')).to.deep.equal([a.id]);

    const b = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'EXT-2' }), 201).body;
    expect(b.externalId).to.equal(null);
    expect(problemOf(await org.api.patch(`/orders/${b.id}`, { externalId: 'ERP-PO-1' }), 409).errors[0].message).to.contain(a.id);
    expectStatus(await org.api.patch(`/orders/${a.id}`, { externalId: 'ERP-PO-1' }), 200);
    expectStatus(await org.api.patch(`/orders/${b.id}`, { externalId: 'ERP-PO-2' }), 200);
    expect((await ids('/orders?filter[externalId_in][]=ERP-PO-1&filter[externalId_in][]=ERP-PO-2')).sort()).to.deep.equal([a.id, b.id].sort());
    // Another organization may use the same value.
    expectStatus(await other.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'EXT-1', externalId: 'ERP-PO-1' }), 201);
    // null clears it, and the value is free again.
    expectStatus(await org.api.patch(`/orders/${b.id}`, { externalId: null }), 200);
    expect(await ids('/orders?filter[externalId]=ERP-PO-2')).to.deep.equal([]);

    const { entries } = await readAll(org.api, cursor, '&resource=order');
    expect(entries.filter((e) => e.id === b.id).map((e) => e.data.externalId)).to.deep.equal([null, 'ERP-PO-2', null]);
  });

  it('sets items’ externalIds on create and PATCH: taken or twice in one request is a 409, found by filter on both item lists', async () => {
    const order = expectStatus(
      await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'EXT-I', items: [{ lineNumber: 1, quantity: 1, externalId: 'ERP-L-1' }] }),
      201,
    ).body;
    const twice = problemOf(
      await org.api.post(`/orders/${order.id}/items`, [
        { lineNumber: 2, quantity: 1, externalId: 'ERP-L-2' },
        { lineNumber: 3, quantity: 1, externalId: 'ERP-L-2' },
      ]),
      409,
    );
    expect(twice.errors[0]).to.include({ field: 'body[1].externalId', rule: 'unique' });
    const [item] = expectStatus(await org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 2, quantity: 1, externalId: 'ERP-L-2' }]), 201).body;
    const first = (await ids(`/orders/${order.id}/items?filter[externalId]=ERP-L-1`))[0];
    expect(problemOf(await org.api.patch(`/items/${item.id}`, { externalId: 'ERP-L-1' }), 409).errors[0].message).to.contain(first);
    expect(await ids(`/items?filter[externalId_in][]=ERP-L-2`)).to.deep.equal([item.id]);
  });

  it('sets invoices’, delivery receipts’, change orders’ (integration reports) and requisitions’ externalIds, unique and filterable', async () => {
    const b = await billing.basics(org);
    const invoice = await billing.invoice(org, b);
    const invoice2 = await billing.invoice(org, b);
    const receipt = await billing.receipt(org, b);
    const requisition = await billing.requisition(org, b);
    const requisition2 = await billing.requisition(org, b);
    expectStatus(await org.api.post(`/invoices/${invoice}/integrationState`, { integrationState: 'LINKED', externalId: 'AP-1' }), 200);
    problemOf(await org.api.post(`/invoices/${invoice2}/integrationState`, { integrationState: 'LINKED', externalId: 'AP-1' }), 409);
    expect(await ids('/invoices?filter[externalId]=AP-1')).to.deep.equal([invoice]);

    expectStatus(await org.api.post(`/deliveries/${receipt}/updateIntegrationState`, { integrationState: 'LINKED', externalId: 'RCV-1' }), 200);
    expect(await ids('/deliveries?filter[externalId]=RCV-1')).to.deep.equal([receipt]);

    expectStatus(await org.api.patch(`/requisitions/${requisition}/updateRequisitionState?state=CLOSED&externalId=REQ-1`), 200);
    const taken = problemOf(await org.api.patch(`/requisitions/${requisition2}/updateRequisitionState?state=CLOSED&externalId=REQ-1`), 409);
    expect(taken.errors[0]).to.include({ field: 'query.externalId', rule: 'unique' });
    expect(await ids('/requisitions?filter[externalId]=REQ-1')).to.deep.equal([requisition]);

    const order = (await makeOrder(org)).id;
    expectStatus(await org.api.patch(`/orders/${order}`, { notes: 'changed' }), 200);
    const [co] = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${order}`), 200).body;
    expectStatus(await org.api.post(`/changeOrders/${co.id}/integrationState`, { integrationState: 'LINKED', externalId: 'CO-1' }), 200);
    expect(expectStatus(await org.api.get(`/changeOrders/${co.id}`), 200).body.externalId).to.equal('CO-1');
    expect(await ids('/changeOrders?filter[externalId]=CO-1')).to.deep.equal([co.id]);
  });
});
