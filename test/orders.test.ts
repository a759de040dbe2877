import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import {
  insertAttachment,
  insertCode,
  insertJob,
  insertLocation,
  insertTaxCode,
  insertVendor,
  makeOrder,
  sleep,
  softDeleteOrder,
} from './support/purchasing-fixtures';
import { addItems, removeItem, setIntegrationState, updateItem, updateOrder } from '../src/resources/orders/store';
import { itDirect, PRISM } from './support/proxy';
import { staggerCreatedAt } from './support/creation-order';

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('orders', () => {
  let org: TestOrg;
  let other: TestOrg;
  let full: string;
  let major: string;
  let rfq: string;
  let hfr: string;
  let deleted: string;
  let ids: { job: string; vendor: string; location: string; gl: string; tax: string };

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    await harness().db('organizations').where({ id: org.id }).update({ header_custom_field_name: 'Cost code' });
    ids = {
      job: await insertJob(org.id, 'J-1042'),
      vendor: await insertVendor(org.id, 'V-FERGUSON'),
      location: await insertLocation(org.id),
      gl: await insertCode('gl_codes', org.id, '5100-MAT', 'Materials'),
      tax: await insertTaxCode(org.id, 'TX-CA', 0.0725),
    };
    full = await makeOrder(org, {
      job_id: ids.job,
      vendor_id: ids.vendor,
      delivery_location_id: ids.location,
      gl_code_id: ids.gl,
      tax_code_id: ids.tax,
      purchase_order_number: 'J-1042-0001',
      title: 'Slab-on-grade rebar and mesh',
      notes: 'Match submittal 03-300-004.',
      delivery_instructions: 'North gate',
      discount: 150,
      shipping_cost: 85.5,
      field_contact_name: 'Marcus Reed',
      field_contact_phone: '+1 916 555 0142',
      flagged: true,
      flagged_at: '2026-10-07T08:00:00.000Z',
      flag_message: 'Late shipment',
      tax_exempt: false,
      mode: 'ISSUE_PO',
      need_by_date_day: '2026-10-08T00:00:00.000Z',
      need_by_window: 'AM',
      state: 'ACTIVE',
      type: 'STANDARD',
      received_state: 'PARTIALLY_RECEIVED',
      custom_column_value: 'Level 2',
      off_rent_date: '2026-12-01',
      off_rent_number: 'OR-77',
      distributor_contact_name: 'Dana Whitfield',
      header_custom_field_value: 'CC-7781',
    });
    await insertAttachment(org.id, full, 'Vendor quote Q-88213', 'ferguson-quote.pdf');
    major = await makeOrder(org, {
      type: 'MAJOR',
      mode: 'PRE_ACKNOWLEDGED',
      state: 'FINALIZING',
      purchase_order_number: 'J-1042-0002',
      need_by_date_day: '2026-10-01T00:00:00.000Z',
      tax_exempt: true,
      header_custom_field_value: 'CC-1',
    });
    rfq = await makeOrder(org, { mode: 'REQUEST_FOR_QUOTE', state: 'BID_ACTIVE', purchase_order_number: 'J-1042-0003', header_custom_field_value: 'CC-2' });
    hfr = await makeOrder(org, { type: 'HOLD_FOR_RELEASE', state: 'DRAFT', purchase_order_number: 'J-1042-0004' });
    deleted = await makeOrder(org, { purchase_order_number: 'J-1042-0005' });
    await staggerCreatedAt('orders', [full, major, rfq, hfr, deleted]);
    await softDeleteOrder(org.id, deleted);
    await setIntegrationState(harness().db, org.id, major, 'LINKED', null);
    await setIntegrationState(harness().db, org.id, rfq, 'ERROR', 'Vendor not mapped');
  });

  it('returns every field of an order, with glCode, taxCode and attachments', async () => {
    const o = expectStatus(await org.api.get(`/orders/${full}`), 200).body;
    expect(o).to.deep.include({
      id: full,
      createdById: org.userId,
      updatedById: org.userId,
      jobId: ids.job,
      vendorId: ids.vendor,
      deliveryLocationId: ids.location,
      deliveryInstructions: 'North gate',
      discount: 150,
      fieldContactName: 'Marcus Reed',
      fieldContactPhone: '+1 916 555 0142',
      flagged: true,
      flaggedAt: '2026-10-07T08:00:00.000Z',
      flagMessage: 'Late shipment',
      glCode: { id: ids.gl, code: '5100-MAT' },
      integrationLastSync: null,
      integrationMessage: null,
      integrationState: 'NOT_LINKED',
      mode: 'ISSUE_PO',
      needByDateDay: '2026-10-08T00:00:00.000Z',
      needByWindow: 'AM',
      notes: 'Match submittal 03-300-004.',
      purchaseOrderNumber: 'J-1042-0001',
      shippingCost: 85.5,
      state: 'ACTIVE',
      taxCode: { id: ids.tax, code: 'TX-CA', taxPercent: 0.0725 },
      taxExempt: false,
      type: 'STANDARD',
      receivedState: 'PARTIALLY_RECEIVED',
      customColumnValue: 'Level 2',
      title: 'Slab-on-grade rebar and mesh',
      offRentDate: '2026-12-01',
      offRentNumber: 'OR-77',
      distributorContactName: 'Dana Whitfield',
      headerCustomFieldValue: 'CC-7781',
    });
    // Retired in version 2026-12-15 (test/api-versions.test.ts reads them at 2026-06-01).
    expect(o).to.not.have.any.keys('version', 'isProjectPO');
    expect(o.createdAt).to.match(TS);
    expect(o.updatedAt).to.match(TS);
    expect(o.attachments).to.have.length(1);
    expect(o.attachments[0]).to.include({ identifier: 'Vendor quote Q-88213' });
    expect(o.attachments[0].file).to.include({ name: 'ferguson-quote.pdf', url: 'https://files.procurement.dev/ferguson-quote.pdf' });
    expect(o.attachments[0].file.createdAt).to.match(TS);
  });

  it('gives each order its type and nulls headerCustomFieldValue for requests for quote', async () => {
    const list = expectStatus(await org.api.get('/orders'), 200).body as any[];
    const byId = new Map(list.map((o) => [o.id, o]));
    expect(byId.get(major)).to.include({ type: 'MAJOR', headerCustomFieldValue: 'CC-1' });
    expect(byId.get(hfr)).to.include({ type: 'HOLD_FOR_RELEASE' });
    expect(byId.get(rfq)).to.include({ mode: 'REQUEST_FOR_QUOTE', headerCustomFieldValue: null });
    expect(byId.get(hfr).glCode).to.equal(null);
    expect(byId.get(hfr).taxCode).to.equal(null);
    expect(byId.get(hfr).attachments).to.deep.equal([]);
  });

  it('returns headerCustomFieldValue null while the organization has not configured the field', async () => {
    const o2 = await newOrg();
    const id = await makeOrder(o2, { header_custom_field_value: 'CC-9' });
    expect(expectStatus(await o2.api.get(`/orders/${id}`), 200).body.headerCustomFieldValue).to.equal(null);
  });

  it('never lists or reads deleted orders', async () => {
    const list = expectStatus(await org.api.get('/orders?limit=1000'), 200).body as any[];
    expect(list.map((o) => o.id)).to.have.members([full, major, rfq, hfr]);
    problemOf(await org.api.get(`/orders/${deleted}`), 404);
  });

  it('orders by createdAt by default and by every allowed field', async () => {
    const list = expectStatus(await org.api.get('/orders'), 200).body as any[];
    expect(list.map((o) => o.id)).to.deep.equal([full, major, rfq, hfr]);
    const po = expectStatus(await org.api.get('/orders?orderBy=purchaseOrderNumber&direction=DESC'), 200).body as any[];
    expect(po.map((o) => o.purchaseOrderNumber)).to.deep.equal(['J-1042-0004', 'J-1042-0003', 'J-1042-0002', 'J-1042-0001']);
    const nb = expectStatus(await org.api.get('/orders?orderBy=needByDateDay&filter[needByDateDay_gte]=2026-01-01T00:00:00Z'), 200).body as any[];
    expect(nb.map((o) => o.id)).to.deep.equal([major, full]);
    for (const f of ['flaggedAt', 'id', 'updatedAt', 'createdAt']) expectStatus(await org.api.get(`/orders?orderBy=${f}`), 200);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=title'), async () => {
    problemOf(await org.api.get('/orders?orderBy=title'), 400);
  });

  it('filters on the allowed fields, integrationState only with _in', async () => {
    const ids_ = async (q: string) => (expectStatus(await org.api.get(`/orders?${q}`), 200).body as any[]).map((o) => o.id);
    expect(await ids_('filter[integrationState_in][]=LINKED&filter[integrationState_in][]=ERROR')).to.have.members([major, rfq]);
    expect(await ids_('filter[integrationState_in]=NOT_LINKED')).to.have.members([full, hfr]);
    problemOf(await org.api.get('/orders?filter[integrationState]=LINKED'), 400);
    problemOf(await org.api.get('/orders?filter[integrationState_not]=LINKED'), 400);
    expect(await ids_('filter[type]=MAJOR')).to.deep.equal([major]);
    expect(await ids_('filter[mode]=REQUEST_FOR_QUOTE')).to.deep.equal([rfq]);
    expect(await ids_('filter[state_in]=DRAFT,FINALIZING')).to.have.members([hfr, major]);
    expect(await ids_('filter[flagged]=true')).to.deep.equal([full]);
    expect(await ids_('filter[taxExempt]=true')).to.deep.equal([major]);
    // null (never set: rfq, hfr) is not false; it is "not true" (_not is IS DISTINCT FROM).
    expect(await ids_('filter[taxExempt]=false')).to.deep.equal([full]);
    expect(await ids_('filter[taxExempt_not]=true')).to.have.members([full, rfq, hfr]);
    expect(await ids_('filter[purchaseOrderNumber_starts_with]=j-1042-000&filter[purchaseOrderNumber_not]=J-1042-0001')).to.have.members([major, rfq, hfr]);
    expect(await ids_(`filter[id]=${full}`)).to.deep.equal([full]);
    expect(await ids_('filter[flaggedAt_gt]=2026-10-01T00:00:00Z')).to.deep.equal([full]);
    expect(await ids_('filter[createdAt_lt]=2000-01-01T00:00:00Z')).to.deep.equal([]);
    problemOf(await org.api.get('/orders?filter[title]=x'), 400);
  });

  itDirect('rejects a state outside the enum', PRISM.invalidRequest('filter[state]=OPEN'), async () => {
    problemOf(await org.api.get('/orders?filter[state]=OPEN'), 400);
  });

  it("answers another organization's order exactly like a missing one", async () => {
    await expectForeignLikeMissing(other, 'GET', `/orders/${full}`, `/orders/${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'POST', `/orders/${full}/integrationState`, `/orders/${MISSING_ID}/integrationState`, { integrationState: 'LINKED' });
    problemOf(await org.api.get('/orders/not-an-id'), 404);
    expect(expectStatus(await other.api.get('/orders'), 200).body).to.deep.equal([]);
  });

  describe('integration state', () => {
    it('starts NOT_LINKED; LINKED stamps integrationLastSync and leaves updatedAt alone', async () => {
      const id = await makeOrder(org);
      const before = expectStatus(await org.api.get(`/orders/${id}`), 200).body;
      expect(before).to.include({ integrationState: 'NOT_LINKED', integrationLastSync: null });
      const linked = expectStatus(
        await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', integrationMessage: 'Synced as PO 4500012' }),
        200,
      ).body;
      expect(linked).to.include({ id, integrationState: 'LINKED', integrationMessage: 'Synced as PO 4500012', updatedAt: before.updatedAt });
      expect(linked.integrationLastSync).to.match(TS);
      await sleep(5);
      const again = expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED' }), 200).body;
      expect(again.integrationLastSync! > linked.integrationLastSync!).to.equal(true);
      expect(again.integrationMessage).to.equal(null);
      const linking = expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKING' }), 200).body;
      expect(linking).to.include({ integrationState: 'LINKING', integrationLastSync: again.integrationLastSync });
    });

    it('requires a message with ERROR and stores it', async () => {
      const id = await makeOrder(org);
      const p = problemOf(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'ERROR' }), 400);
      expect(p.errors[0]).to.include({ field: 'body.integrationMessage' });
      problemOf(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'ERROR', integrationMessage: '  ' }), 400);
      const res = expectStatus(
        await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'GL 5100 closed' }),
        200,
      ).body;
      expect(res).to.include({ integrationState: 'ERROR', integrationMessage: 'GL 5100 closed', integrationLastSync: null });
    });

    itDirect(
      'accepts only the states an integrator reports and never integrationLastSync',
      PRISM.invalidRequest('integrationState values an integrator may not report, integrationLastSync, an empty body'),
      async () => {
        const id = await makeOrder(org);
        for (const s of ['NOT_LINKED', 'OUT_OF_SYNC', 'SYNCED']) {
          const p = problemOf(await org.api.unchecked.post(`/orders/${id}/integrationState`, { integrationState: s }), 400);
          expect(p.errors[0].field).to.equal('body.integrationState');
        }
        const p = problemOf(
          await org.api.unchecked.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', integrationLastSync: '2020-01-01T00:00:00.000Z' }),
          400,
        );
        expect(p.errors[0].field).to.equal('body.integrationLastSync');
        problemOf(await org.api.unchecked.post(`/orders/${id}/integrationState`, {}), 400);
        expect(expectStatus(await org.api.get(`/orders/${id}`), 200).body.integrationState).to.equal('NOT_LINKED');
      },
    );

    it('answers 404 for a deleted order', async () => {
      problemOf(await org.api.post(`/orders/${deleted}/integrationState`, { integrationState: 'LINKED' }), 404);
    });

    it('moves a LINKED order to OUT_OF_SYNC on any change to it or its items, and keeps others as they are', async () => {
      const db = harness().db;
      const state = async (id: string) => expectStatus(await org.api.get(`/orders/${id}`), 200).body;
      const link = (id: string) => org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED' });
      const id = await makeOrder(org, {}, [{ line_number: 1, description: 'Conduit', quantity: 10 }]);
      const [itemId] = (await db('items').where({ order_id: id }).select('id')).map((r) => r.id);

      expectStatus(await link(id), 200);
      const linked = await state(id);
      await sleep(5);
      await updateOrder(db, org.id, org.userId, id, { notes: 'changed' });
      const changed = await state(id);
      expect(changed).to.include({ integrationState: 'OUT_OF_SYNC', notes: 'changed', integrationLastSync: linked.integrationLastSync });
      expect(changed.updatedAt > linked.updatedAt).to.equal(true);

      expectStatus(await link(id), 200);
      await addItems(db, org.id, org.userId, id, [{ line_number: 2, description: 'Fittings' }]);
      expect((await state(id)).integrationState).to.equal('OUT_OF_SYNC');

      expectStatus(await link(id), 200);
      await updateItem(db, org.id, org.userId, itemId, { quantity: 12 });
      expect((await state(id)).integrationState).to.equal('OUT_OF_SYNC');

      expectStatus(await link(id), 200);
      await removeItem(db, org.id, org.userId, itemId);
      expect((await state(id)).integrationState).to.equal('OUT_OF_SYNC');

      // Only LINKED moves: an ERROR or NOT_LINKED order keeps its state.
      expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'x' }), 200);
      await updateOrder(db, org.id, org.userId, id, { notes: 'again' });
      expect((await state(id)).integrationState).to.equal('ERROR');
      const fresh = await makeOrder(org);
      await updateOrder(db, org.id, org.userId, fresh, { notes: 'n' });
      expect((await state(fresh)).integrationState).to.equal('NOT_LINKED');
    });
  });
});
