import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { insertJob, insertLocation, insertTaxCode, insertVendor } from './support/purchasing-fixtures';
import { canMove, OrderMode, OrderState } from '../src/resources/orders/states';
import { ITEM_DIFF_KEYS } from './support/item-diff';
import { itDirect, PRISM } from './support/proxy';
import { headCursor, readAll } from './support/feed';

const BASE = { purchaseOrderNumber: 'PO-1', distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };
const STATES: OrderState[] = ['DRAFT', 'BID_ACTIVE', 'BID_CANCELLED', 'FINALIZING', 'ACTIVE', 'CANCELLED', 'COMPLETE'];
const MODES: OrderMode[] = ['ISSUE_PO', 'PRE_ACKNOWLEDGED', 'REQUEST_FOR_QUOTE'];

describe('orders authoring', () => {
  let org: TestOrg;
  let other: TestOrg;
  let refs: { job: string; vendor: string; location: string; tax: string };

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    refs = {
      job: await insertJob(org.id),
      vendor: await insertVendor(org.id),
      location: await insertLocation(org.id),
      tax: await insertTaxCode(org.id, 'TX-8', 0.08),
    };
  });

  const create = async (extra: Record<string, unknown> = {}) => expectStatus(await org.api.post('/orders', { ...BASE, ...extra }), 201).body;
  const changeOrdersOf = async (orderId: string, draft = false) =>
    expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${orderId}${draft ? '&filter[draft]=true' : ''}&orderBy=createdAt`), 200).body as any[];

  it('creates an order with references resolved in the organization and items priced by the service', async () => {
    const order = await create({
      jobId: refs.job,
      vendorId: refs.vendor,
      deliveryLocationId: refs.location,
      taxCodeId: refs.tax,
      needByWindow: 'AM',
      type: 'MAJOR',
      items: [
        { lineNumber: 1, quantity: 3, unitPrice: 10, unitsOfMeasure: 'EA' },
        { lineNumber: 2, quantity: 1200, unitPrice: 86.5, unitsOfMeasure: 'C' },
        { lineNumber: 3, quantity: 2500, unitPrice: 40, unitsOfMeasure: 'M' },
        { lineNumber: 4, quantity: 7, unitPrice: 1.5 },
        { lineNumber: 5, quantity: 1200, unitPrice: 86.5, unitsOfMeasure: 'C', unitDiscount: 2.5 },
        { lineNumber: 6, quantity: 4, unitsOfMeasure: 'EA' },
      ],
    });
    expect(order).to.include({
      state: 'DRAFT',
      integrationState: 'NOT_LINKED',
      jobId: refs.job,
      vendorId: refs.vendor,
      type: 'MAJOR',
      versionNumber: 0,
    });
    expect(order.taxCode!.id).to.equal(refs.tax);
    const items = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    expect(items.map((i: any) => [i.extPrice, i.extPriceIncludingTax])).to.deep.equal([
      [30, 32.4],
      [1038, 1121.04],
      [100, 108],
      [10.5, 11.34],
      [1012.05, 1093.01],
      [null, null],
    ]);
    // Tax exemption reprices the lines.
    expectStatus(await org.api.patch(`/orders/${order.id}`, { taxExempt: true }), 200);
    const exempt = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    expect(exempt[0]).to.include({ extPrice: 30, extPriceIncludingTax: 30 });
  });

  itDirect(
    'names the field of a reference that is not in the organization (404) and of invalid input (400)',
    PRISM.invalidRequest('an order without its required contact fields'),
    async () => {
      const foreignVendor = await insertVendor(other.id);
      const p = problemOf(await org.api.post('/orders', { ...BASE, vendorId: foreignVendor }), 404);
      expect(p.errors[0].field).to.equal('body.vendorId');
      const t = problemOf(await org.api.post('/orders', { ...BASE, items: [{ lineNumber: 1, taxCode: 'NOPE' }] }), 404);
      expect(t.errors[0].field).to.equal('body.items[0].taxCode');
      const missing = problemOf(await org.api.unchecked.post('/orders', { purchaseOrderNumber: 'X' }), 400);
      expect(missing.errors.map((e) => e.message).join()).to.contain('distributorContactEmail');
      problemOf(await org.api.post('/orders', { ...BASE, items: Array.from({ length: 1001 }, (_, n) => ({ lineNumber: n })) }), 400);
      const finalState = problemOf(await org.api.post('/orders', { ...BASE, state: 'COMPLETE' }), 409);
      expect(finalState.detail).to.contain('COMPLETE');
    },
  );

  it("prices lines in a unit of measure by its multiplier (C per hundred, M per thousand); E leaves the unit code's rule", async () => {
    const suffix = Date.now().toString(36).toUpperCase();
    for (const [code, multiplier] of [
      [`CWT${suffix}`, 'C'],
      [`KP${suffix}`, 'M'],
      [`EX${suffix}`, 'E'],
    ] as const)
      expectStatus(await org.api.post('/units-of-measure', { code, description: `unit ${code}`, multiplier }), 201);
    const order = await create({
      items: [
        { lineNumber: 1, quantity: 200, unitPrice: 10, unitsOfMeasure: `CWT${suffix}` },
        { lineNumber: 2, quantity: 2000, unitPrice: 10, unitsOfMeasure: `KP${suffix}` },
        { lineNumber: 3, quantity: 200, unitPrice: 10, unitsOfMeasure: `EX${suffix}` },
        // No unit of measure of that code: the code's rule.
        { lineNumber: 4, quantity: 200, unitPrice: 10, unitsOfMeasure: 'C' },
      ],
    });
    const items = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    expect(items.map((i: any) => [i.unitsOfMeasure, i.extPrice])).to.deep.equal([
      [`CWT${suffix}`, 20],
      [`KP${suffix}`, 20],
      [`EX${suffix}`, 2000],
      ['C', 20],
    ]);
  });

  it('moves states only along the state machine: every illegal move is a 409 naming both states', async () => {
    for (const mode of MODES) {
      const id = (await create({ mode })).id;
      for (const from of STATES) {
        for (const to of STATES) {
          await harness().db('orders').where({ id }).update({ state: from });
          const res = await org.api.patch(`/orders/${id}`, { state: to });
          if (canMove(mode, from, to)) {
            expectStatus(res, 200);
          } else {
            const p = problemOf(res, 409);
            expect(p.detail, `${mode} ${from} -> ${to}`).to.contain(from).and.to.contain(to);
            expect(p.errors[0]).to.include({ field: 'body.state', rule: 'state-machine' });
          }
        }
      }
    }
    // The table the guide documents.
    expect(canMove('ISSUE_PO', 'DRAFT', 'BID_ACTIVE')).to.equal(false);
    expect(canMove('REQUEST_FOR_QUOTE', 'BID_ACTIVE', 'FINALIZING')).to.equal(true);
    expect(canMove('ISSUE_PO', 'COMPLETE', 'CANCELLED')).to.equal(false);
  });

  it('records one change order per request on a sent order, key by key as the spec defines them', async () => {
    const order = await create({
      state: 'FINALIZING',
      notes: 'keep dry',
      items: [
        { lineNumber: 1, quantity: 10, unitPrice: 5, description: 'Conduit' },
        { lineNumber: 2, quantity: 1, unitPrice: 100, description: 'Box' },
      ],
    });
    const [first, second] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;

    // 1: order values (a changed value, a deleted value).
    expectStatus(await org.api.patch(`/orders/${order.id}`, { shippingCost: 25, notes: null }), 200);
    // 2: an added item.
    const [added] = expectStatus(
      await org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 3, quantity: 2, unitPrice: 3, unitsOfMeasure: 'EA' }]),
      201,
    ).body;
    // 3: a modified item (a value changed, a value deleted).
    expectStatus(await org.api.patch(`/items/${first.id}`, { quantity: 12, description: null }), 200);
    // 4: a deleted item.
    expectStatus(await org.api.delete(`/items/${second.id}`), 200);
    // 5: a draft change order (hidden unless asked for).
    expectStatus(await org.api.patch(`/orders/${order.id}?draft=true`, { deliveryInstructions: 'Draft gate' }), 200);

    const cos = await changeOrdersOf(order.id);
    expect(cos.map((c) => c.versionNumber)).to.deep.equal([1, 2, 3, 4]);
    const [c1, c2, c3, c4] = cos;
    expect(Object.keys(c1.modifiedOrderValues).sort()).to.deep.equal(['notes', 'shippingCost', 'total', 'updatedAt']);
    expect(c1.modifiedOrderValues).to.include({ shippingCost: 25, notes: null, total: 175 });
    expect(c1).to.deep.include({ addedItems: [], deletedItems: [], modifiedItems: [] });

    expect(c2.addedItems).to.have.length(1);
    expect(Object.keys(c2.addedItems[0]).sort()).to.deep.equal([...ITEM_DIFF_KEYS].sort());
    expect(c2.addedItems[0]).to.include({ id: added.id, lineNumber: 3, quantity: 2, unitPrice: 3, extPrice: 6 });
    expect(c2.modifiedOrderValues.total).to.equal(181);

    expect(c3.modifiedItems).to.have.length(1);
    expect(Object.keys(c3.modifiedItems[0]).sort()).to.deep.equal(['createdAt', 'description', 'extPrice', 'id', 'lineNumber', 'quantity', 'updatedAt']);
    expect(c3.modifiedItems[0]).to.include({ id: first.id, lineNumber: 1, quantity: 12, description: null, extPrice: 60 });

    expect(c4.deletedItems).to.have.length(1);
    expect(Object.keys(c4.deletedItems[0]).sort()).to.deep.equal([...ITEM_DIFF_KEYS].sort());
    expect(c4.deletedItems[0]).to.include({ id: second.id, description: 'Box' });

    const drafts = (await changeOrdersOf(order.id, true)).filter((c) => c.draft);
    expect(drafts.map((c) => [c.versionNumber, c.modifiedOrderValues.deliveryInstructions])).to.deep.equal([[5, 'Draft gate']]);
    // The order's version is its latest completed change order's (the draft is not one yet).
    expect((await org.api.get(`/orders/${order.id}`)).body).to.include({ versionNumber: 4 });
  });

  it('records no change order for a draft order, and turns a LINKED order OUT_OF_SYNC on item writes', async () => {
    const order = await create({ items: [{ lineNumber: 1, quantity: 1 }] });
    expectStatus(await org.api.patch(`/orders/${order.id}`, { notes: 'draft edit' }), 200);
    expect(await changeOrdersOf(order.id, true)).to.deep.equal([]);
    const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    for (const write of [
      () => org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 2 }]),
      () => org.api.patch(`/items/${item.id}`, { notes: 'x' }),
      () => org.api.delete(`/items/${item.id}`),
    ]) {
      expectStatus(await org.api.post(`/orders/${order.id}/integrationState`, { integrationState: 'LINKED' }), 200);
      const res = await write();
      expect(res.status).to.be.oneOf([200, 201]);
      expect(expectStatus(await org.api.get(`/orders/${order.id}`), 200).body.integrationState).to.equal('OUT_OF_SYNC');
    }
  });

  it('refuses item writes on a final order (409)', async () => {
    const order = await create({ items: [{ lineNumber: 1 }] });
    expectStatus(await org.api.patch(`/orders/${order.id}`, { state: 'CANCELLED' }), 200);
    const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    problemOf(await org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 2 }]), 409);
    problemOf(await org.api.patch(`/items/${item.id}`, { notes: 'x' }), 409);
    problemOf(await org.api.delete(`/items/${item.id}`), 409);
  });

  it('soft-deletes an order: 404 on read, gone from lists, its releases leave /releases with a release.deleted in the feed, its tags an order_tag.deleted', async () => {
    const order = await create({ type: 'HOLD_FOR_RELEASE', items: [{ lineNumber: 1, quantity: 100, unitPrice: 2 }] });
    const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    const [tag] = expectStatus(await org.api.post(`/order/${order.id}/tags`, [{ title: 'Leaves with its order' }]), 200).body;
    const db = harness().db;
    const [release] = await db('releases').insert({ organization_id: org.id, order_id: order.id, release_number: 'R-1' }).returning('id');
    await db('release_items').insert({ organization_id: org.id, release_id: release.id, item_id: item.id, quantity_released: 5 });
    expect(expectStatus(await org.api.get(`/releases?orderId=${order.id}`), 200).body.meta.total).to.equal(1);
    const cursor = await headCursor(org.api);
    const deleted = expectStatus(await org.api.delete(`/orders/${order.id}`), 200);
    expect(deleted.body.id).to.equal(order.id);
    expect(deleted.body.deletedAt).to.be.a('string');
    problemOf(await org.api.get(`/orders/${order.id}`), 404);
    expect(expectStatus(await org.api.get('/orders?limit=500'), 200).body.map((o: any) => o.id)).not.to.include(order.id);
    expect(expectStatus(await org.api.get('/releases?limit=500'), 200).body.data.map((r: any) => r.id)).not.to.include(release.id);
    problemOf(await org.api.delete(`/orders/${order.id}`), 404);
    problemOf(await org.api.get(`/items/${item.id}`), 404);
    problemOf(await org.api.get(`/order/${order.id}/tags`), 404);
    // Everything that left the API with the order is in the feed, as GET /changes reports it.
    const { entries } = await readAll(org.api, cursor);
    expect(entries.map((e) => [e.type, e.id])).to.deep.equal([
      ['item.deleted', item.id],
      ['release.deleted', release.id],
      ['order_tag.deleted', tag.id],
      ['order.deleted', order.id],
    ]);
    expect(entries[1]).to.include({ resource: 'release' });
    expect(entries[1].data).to.deep.equal({ id: release.id, deletedAt: deleted.body.deletedAt, orderId: order.id });
    // The order tag's tombstone is the one taking the tag off the order gives; the tag itself stays.
    expect(entries[2]).to.include({ resource: 'order_tag' });
    expect(entries[2].data).to.deep.equal({ id: tag.id, deletedAt: deleted.body.deletedAt, orderId: order.id });
    expect(expectStatus(await org.api.get('/tags?limit=500'), 200).body.map((t: any) => t.id)).to.include(tag.id);
  });

  it('answers another organization on every new operation exactly like a missing object', async () => {
    const order = await create({ items: [{ lineNumber: 1 }] });
    const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    await expectForeignLikeMissing(other, 'PATCH', `/orders/${order.id}`, `/orders/${MISSING_ID}`, { notes: 'x' });
    await expectForeignLikeMissing(other, 'POST', `/orders/${order.id}/items`, `/orders/${MISSING_ID}/items`, [{ lineNumber: 2 }]);
    await expectForeignLikeMissing(other, 'PATCH', `/items/${item.id}`, `/items/${MISSING_ID}`, { notes: 'x' });
    await expectForeignLikeMissing(other, 'DELETE', `/items/${item.id}`, `/items/${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'DELETE', `/orders/${order.id}`, `/orders/${MISSING_ID}`);
    expect(expectStatus(await org.api.get(`/orders/${order.id}`), 200).body.versionNumber).to.equal(0);
  });

  it('records a feed entry for every change, with the object as its read endpoint returns it', async () => {
    const db = harness().db;
    const feed = async (since: number) =>
      (await db('change_feed').where('organization_id', org.id).where('position', '>', since).orderBy('position').select('type', 'resource_id', 'data')) as {
        type: string;
        resource_id: string;
        data: any;
      }[];
    const head = Number((await db('feed_heads').where('organization_id', org.id).first('position'))?.position ?? 0);
    const order = await create({ state: 'FINALIZING', items: [{ lineNumber: 1, quantity: 2, unitPrice: 3 }] });
    const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    expectStatus(await org.api.patch(`/orders/${order.id}`, { notes: 'n' }), 200);
    const [added] = expectStatus(await org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 2 }]), 201).body;
    const patched = expectStatus(await org.api.patch(`/items/${item.id}`, { quantity: 4 }), 200).body;
    expectStatus(await org.api.delete(`/items/${added.id}`), 200);
    const linked = expectStatus(await org.api.post(`/orders/${order.id}/integrationState`, { integrationState: 'LINKED' }), 200).body;
    const versions = await changeOrdersOf(order.id);
    const [co] = versions;
    expectStatus(await org.api.post(`/changeOrders/${co.id}/integrationState`, { integrationState: 'LINKED' }), 200);
    expectStatus(await org.api.delete(`/orders/${order.id}`), 200);
    const entries = await feed(head);
    expect(entries.map((e) => e.type)).to.deep.equal([
      'order.created',
      'item.created',
      'change_order.created',
      'order.updated',
      'change_order.created',
      'order.updated',
      'item.created',
      'change_order.created',
      'order.updated',
      'item.updated',
      'change_order.created',
      'order.updated',
      'item.deleted',
      'order.integration_state_changed',
      'change_order.integration_state_changed',
      'item.deleted',
      'change_order.deleted',
      'change_order.deleted',
      'change_order.deleted',
      'change_order.deleted',
      'order.deleted',
    ]);
    expect(entries[0].data).to.deep.equal(order);
    expect(entries[9].data).to.deep.equal(patched);
    expect(entries[12].data).to.have.keys('id', 'deletedAt', 'orderId');
    expect(entries[13].data).to.deep.equal(linked);
    expect(entries[14].data.integrationState).to.equal('LINKED');
    // Deleting the order gives its remaining item a tombstone, then its change orders (by version), then the order's.
    const deletedAt = entries[20].data.deletedAt;
    expect(entries[15]).to.include({ resource_id: item.id });
    expect(entries[15].data).to.deep.equal({ id: item.id, deletedAt, orderId: order.id });
    expect(entries.slice(16, 20).map((e) => e.resource_id)).to.deep.equal(versions.map((c) => c.id));
    for (const e of entries.slice(16, 20)) expect(e.data).to.deep.equal({ id: e.resource_id, deletedAt, orderId: order.id });
    expect(entries[20].data).to.have.keys('id', 'deletedAt');
  });
});
