import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { harness } from './support/harness';
import { makeOrder, softDeleteOrder } from './support/release-fixtures';
import { addItems, removeItem, updateItem, updateOrder } from '../src/resources/orders/store';
import { recordChangeOrder, snapshotOrder } from '../src/resources/change-orders/store';
import { itDirect, PRISM } from './support/proxy';
import { ITEM_DIFF_KEYS } from './support/item-diff';

/** Applies `change` through the order store and records it as a change order. */
async function changeOrder(org: TestOrg, orderId: string, change: () => Promise<unknown>, opts: { label?: string; draft?: boolean } = {}) {
  const db = harness().db;
  const before = (await snapshotOrder(db, org.id, orderId))!;
  await new Promise((r) => setTimeout(r, 5));
  await change();
  const after = (await snapshotOrder(db, org.id, orderId))!;
  return recordChangeOrder(db, org.id, orderId, {
    label: opts.label ?? 'CO',
    note: 'Owner request',
    draft: opts.draft,
    createdById: org.userId,
    before,
    after,
  });
}

describe('change orders', () => {
  let org: TestOrg;
  let other: TestOrg;
  let orderId: string;
  let items: Record<number, string>;
  let taxCodeId: string;
  let first: { id: string; versionNumber: number };
  let second: { id: string; versionNumber: number };
  let draft: { id: string; versionNumber: number };
  let addedId: string;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    const db = harness().db;
    [{ id: taxCodeId }] = await db('tax_codes')
      .insert({ organization_id: org.id, code: 'TX-CA', description: 'California', tax_percent: 0.0725 })
      .returning('id');
    const made = await makeOrder(
      org,
      { purchase_order_number: 'J-1042-017', notes: 'Call before delivery', type: 'STANDARD', shipping_cost: 50, discount: 10 },
      [
        { line_number: 1, description: 'EMT conduit', quantity: 100, unit_price: 2, units_of_measure: 'EA' },
        { line_number: 2, description: 'Couplings', quantity: 50, unit_price: 1, units_of_measure: 'EA' },
        { line_number: 3, description: 'Straps', quantity: 200, unit_price: 0.5, units_of_measure: 'EA' },
      ],
    );
    orderId = made.id;
    items = made.items;
    const s = org.userId;
    first = await changeOrder(
      org,
      orderId,
      async () => {
        await updateOrder(db, org.id, s, orderId, { notes: null, need_by_date_day: '2026-11-24T00:00:00.000Z' });
        await updateItem(db, org.id, s, items[1], { quantity: 120, tax_code_id: taxCodeId });
        await removeItem(db, org.id, s, items[3]);
        [addedId] = await addItems(db, org.id, s, orderId, [{ line_number: 4, description: 'Boxes', quantity: 10, unit_price: 3, units_of_measure: 'EA' }]);
      },
      { label: 'CO-1' },
    );
    second = await changeOrder(org, orderId, () => updateOrder(db, org.id, s, orderId, { state: 'COMPLETE' }), { label: 'CO-2' });
    draft = await changeOrder(org, orderId, () => updateOrder(db, org.id, s, orderId, { title: 'unchanged keys only' }), { label: 'CO-3 draft', draft: true });
  });

  describe('recorded versions and diffs', () => {
    it('numbers versions from 1 after the initial order (version 0)', async () => {
      expect([first.versionNumber, second.versionNumber, draft.versionNumber]).to.deep.equal([1, 2, 3]);
      const co = expectStatus(await org.api.get(`/changeOrders/${first.id}`), 200).body;
      expect(co).to.include({
        id: first.id,
        orderId,
        versionNumber: 1,
        label: 'CO-1',
        note: 'Owner request',
        draft: false,
        createdById: org.userId,
        integrationState: 'NOT_LINKED',
        integrationMessage: null,
      });
    });

    it('holds only the order values that changed, null meaning deleted', async () => {
      const co = expectStatus(await org.api.get(`/changeOrders/${first.id}`), 200).body;
      const m = co.modifiedOrderValues;
      expect(Object.keys(m).sort()).to.deep.equal(['needByDateDay', 'notes', 'total', 'updatedAt']);
      expect(m.notes).to.equal(null);
      expect(m.needByDateDay).to.equal('2026-11-24T00:00:00.000Z');
      // 120 x 2 + 50 x 1 + 10 x 3 - 10 discount + 50 shipping
      expect(m.total).to.equal(360);
      const co2 = expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body;
      expect(Object.keys(co2.modifiedOrderValues).sort()).to.deep.equal(['state', 'updatedAt']);
      expect(co2.modifiedOrderValues.state).to.equal('COMPLETE');
      expect(co2.addedItems).to.deep.equal([]);
      expect(co2.modifiedItems).to.deep.equal([]);
    });

    it('lists added and deleted items with every ItemDiff key', async () => {
      const co = expectStatus(await org.api.get(`/changeOrders/${first.id}`), 200).body;
      expect(co.addedItems).to.have.length(1);
      expect(Object.keys(co.addedItems[0]).sort()).to.deep.equal([...ITEM_DIFF_KEYS].sort());
      expect(co.addedItems[0]).to.include({ id: addedId, lineNumber: 4, description: 'Boxes', quantity: 10, unitPrice: 3, taxCodId: null });
      expect(co.deletedItems).to.have.length(1);
      expect(Object.keys(co.deletedItems[0]).sort()).to.deep.equal([...ITEM_DIFF_KEYS].sort());
      expect(co.deletedItems[0]).to.include({ id: items[3], lineNumber: 3, description: 'Straps', quantity: 200 });
    });

    it('lists modified items with id, lineNumber, createdAt, updatedAt and only the changed values (taxCodId spelled so)', async () => {
      const co = expectStatus(await org.api.get(`/changeOrders/${first.id}`), 200).body;
      expect(co.modifiedItems).to.have.length(1);
      const m = co.modifiedItems[0];
      expect(Object.keys(m).sort()).to.deep.equal(['createdAt', 'id', 'lineNumber', 'quantity', 'taxCodId', 'taxCode', 'taxRate', 'updatedAt']);
      expect(m).to.include({ id: items[1], lineNumber: 1, quantity: 120, taxCodId: taxCodeId, taxCode: 'TX-CA', taxRate: 0.0725 });
    });
  });

  describe('GET /changeOrders', () => {
    it('leaves drafts out unless filter[draft]=true', async () => {
      const list = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${orderId}`), 200).body;
      expect(list.map((c: { id: string }) => c.id)).to.deep.equal([first.id, second.id]);
      const drafts = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${orderId}&filter[draft]=true`), 200).body;
      expect(drafts.map((c: { id: string }) => c.id)).to.deep.equal([draft.id]);
      expect(drafts[0].draft).to.equal(true);
    });

    it('returns at most 10 per request whatever limit says, and pages with offset', async () => {
      const own = await newOrg();
      const db = harness().db;
      const made = await makeOrder(own, {}, [{ line_number: 1, description: 'x', quantity: 1 }]);
      for (let i = 0; i < 12; i++) await changeOrder(own, made.id, () => updateOrder(db, own.id, own.userId, made.id, { notes: `rev ${i}` }));
      const page = expectStatus(await own.api.get('/changeOrders?limit=1000'), 200).body;
      expect(page).to.have.length(10);
      expect(page.map((c: { versionNumber: number }) => c.versionNumber)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(expectStatus(await own.api.get('/changeOrders'), 200).body).to.have.length(10);
      const rest = expectStatus(await own.api.get('/changeOrders?offset=10&limit=50'), 200).body;
      expect(rest.map((c: { versionNumber: number }) => c.versionNumber)).to.deep.equal([11, 12]);
      expect(
        expectStatus(await own.api.get('/changeOrders?limit=3&orderBy=createdAt&direction=DESC'), 200).body.map(
          (c: { versionNumber: number }) => c.versionNumber,
        ),
      ).to.deep.equal([12, 11, 10]);
    });

    itDirect('rejects a limit over 1000', PRISM.invalidRequest('limit=1001'), async () => {
      problemOf(await org.api.get('/changeOrders?limit=1001'), 400);
    });

    it('accepts only the allowed orderBy and filters', async () => {
      expectStatus(await org.api.get('/changeOrders?orderBy=updatedAt&filter[createdAt_gt]=2020-01-01T00:00:00Z'), 200);
      expect(expectStatus(await org.api.get(`/changeOrders?filter[id]=${second.id}`), 200).body.map((c: { id: string }) => c.id)).to.deep.equal([second.id]);
      problemOf(await org.api.get('/changeOrders?filter[label]=CO-1'), 400);
    });

    itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=versionNumber'), async () => {
      problemOf(await org.api.get('/changeOrders?orderBy=versionNumber'), 400);
    });

    it("never lists another organization's change orders", async () => {
      expect(expectStatus(await other.api.get('/changeOrders'), 200).body).to.deep.equal([]);
    });
  });

  describe('GET /changeOrders/{changeOrderId}', () => {
    it('reads drafts by id; 404 for missing, foreign, or of a deleted order', async () => {
      expect(expectStatus(await org.api.get(`/changeOrders/${draft.id}`), 200).body.draft).to.equal(true);
      problemOf(await org.api.get(`/changeOrders/${MISSING_ID}`), 404);
      await expectForeignLikeMissing(other, 'GET', `/changeOrders/${first.id}`, `/changeOrders/${MISSING_ID}`);
      const gone = await makeOrder(org, {}, []);
      const co = await changeOrder(org, gone.id, () => updateOrder(harness().db, org.id, org.userId, gone.id, { notes: 'x' }));
      await softDeleteOrder(org, gone.id);
      problemOf(await org.api.get(`/changeOrders/${co.id}`), 404);
    });
  });

  describe('POST /changeOrders/{changeOrderId}/integrationState', () => {
    it('stores the state and message, answers true, and leaves updatedAt alone', async () => {
      const before = expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body;
      const res = expectStatus(
        await org.api.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'Vendor not found in Vista' }),
        200,
      );
      expect(res.body).to.equal(true);
      expect(res.text).to.equal('true');
      const co = expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body;
      expect(co).to.include({ integrationState: 'ERROR', integrationMessage: 'Vendor not found in Vista', updatedAt: before.updatedAt });
      expectStatus(await org.api.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'LINKED', integrationMessage: 'Exported' }), 200);
      expect(expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body.integrationMessage).to.equal('Exported');
      expectStatus(await org.api.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'LINKED', integrationMessage: null }), 200);
      expect(expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body.integrationMessage).to.equal(null);
    });

    it('follows the rule of every integration report: ERROR needs a message (400), an omitted message clears the stored one', async () => {
      expectStatus(
        await org.api.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'Vendor not found' }),
        200,
      );
      for (const body of [
        { integrationState: 'ERROR' },
        { integrationState: 'ERROR', integrationMessage: null },
        { integrationState: 'ERROR', integrationMessage: '  ' },
      ]) {
        const p = problemOf(await org.api.unchecked.post(`/changeOrders/${second.id}/integrationState`, body), 400);
        expect(p.errors[0]).to.include({ field: 'body.integrationMessage', rule: 'required' });
      }
      // Refused: nothing was stored.
      expect(expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body).to.include({
        integrationState: 'ERROR',
        integrationMessage: 'Vendor not found',
      });
      expectStatus(await org.api.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'LINKING' }), 200);
      expect(expectStatus(await org.api.get(`/changeOrders/${second.id}`), 200).body).to.include({ integrationState: 'LINKING', integrationMessage: null });
    });

    it('answers 404 for a missing or foreign change order', async () => {
      await expectForeignLikeMissing(other, 'POST', `/changeOrders/${first.id}/integrationState`, `/changeOrders/${MISSING_ID}/integrationState`, {
        integrationState: 'LINKED',
      });
    });

    itDirect(
      'validates the body: a listed state is required',
      PRISM.invalidRequest('an unlisted integrationState, a body without integrationState'),
      async () => {
        problemOf(await org.api.unchecked.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'SYNCED' }), 400);
        problemOf(await org.api.unchecked.post(`/changeOrders/${second.id}/integrationState`, { integrationMessage: 'x' }), 400);
      },
    );
  });
});
