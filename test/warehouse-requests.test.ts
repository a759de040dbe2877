import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { Basics, basics, requisition, warehouseRequest } from './support/billing-fixtures';
import { itDirect, PRISM } from './support/proxy';
import { staggerCreatedAt } from './support/creation-order';
import { harness } from './support/harness';
import * as requisitionRequired from '../migrations/20261206030000_warehouse_item_requisition_required';

describe('warehouse requests', () => {
  let org: TestOrg;
  let b: Basics;
  let b2: Basics;
  let reqId: string;
  let reqId2: string;
  const ids: Record<string, string> = {};
  const identifiers = (list: { identifier: string }[]) => list.map((r) => r.identifier);

  before(async () => {
    org = await newOrg();
    b = await basics(org);
    b2 = await basics(org);
    reqId = await requisition(org, b);
    reqId2 = await requisition(org, b);
    // Every line comes from a requisition (WarehouseRequestItem.requisitionId is required).
    const items = [
      {
        line_number: 1,
        state: 'PICKED',
        description: 'Studs',
        quantity: 120,
        picked_quantity: 120,
        uom: 'EA',
        sku: 'LUM-2408',
        upc: '0820',
        mpn: 'SPF248',
        requisition_id: reqId,
        notes: 'straight',
      },
      { line_number: 3, state: 'PARTIAL_PICK', description: 'Drywall', quantity: 80, picked_quantity: 52, sku: 'DW-050', requisition_id: reqId2 },
      { line_number: 2, state: 'UNAVAILABLE', description: 'Anchors', quantity: 500, sku: 'ANC-38', created_by_id: b2.otherUserId, requisition_id: reqId2 },
      { line_number: 4, state: 'REQUESTED', description: 'Screws', quantity: 10, requisition_id: reqId2 },
      { line_number: 5, state: 'SHIPPED', description: 'Glue', quantity: 2, picked_quantity: 2, requisition_id: reqId2 },
      { line_number: 6, state: 'CANCELLED', description: 'Tape', quantity: 3, requisition_id: reqId2 },
      { line_number: 7, state: 'DRAFT', description: 'Sealant', quantity: 6, requisition_id: reqId2 },
    ];
    ids.sent = await warehouseRequest(org, b, { identifier: 'WR-001', state: 'SENT', need_by_date_day: '2026-11-12T00:00:00Z' }, items);
    ids.draft = await warehouseRequest(org, b2, {
      identifier: 'WR-002',
      state: 'DRAFT',
      need_by_date_day: '2026-11-18T00:00:00Z',
      created_by_id: b2.otherUserId,
    });
    ids.ack = await warehouseRequest(org, b, { identifier: 'WR-003', state: 'ACKNOWLEDGED', need_by_date_day: '2026-11-05T00:00:00Z' });
    await staggerCreatedAt('warehouse_requests', [ids.sent, ids.draft, ids.ack]);
  });

  it('reads a request with every field under both spellings', async () => {
    const a = expectStatus(await org.api.get(`/warehouse-requests/${ids.sent}`), 200).body;
    const c = expectStatus(await org.api.get(`/warehouseRequests/${ids.sent}`), 200).body;
    expect(a).to.deep.equal(c);
    expect(a).to.include({
      id: ids.sent,
      identifier: 'WR-001',
      state: 'SENT',
      needByDateDay: '2026-11-12T00:00:00.000Z',
      locationId: b.locationId,
      jobId: b.jobId,
      createdById: b.userId,
    });
    expect(a.createdAt).to.match(/Z$/);
  });

  it('lists with every listed orderBy and filter', async () => {
    const get = async (q: string) => identifiers(expectStatus(await org.api.get(`/warehouse-requests?${q}`), 200).body);
    expect(await get('')).to.deep.equal(['WR-001', 'WR-002', 'WR-003']);
    expect(await get('orderBy=needByDateDay')).to.deep.equal(['WR-003', 'WR-001', 'WR-002']);
    expect(await get('orderBy=identifier&direction=DESC')).to.deep.equal(['WR-003', 'WR-002', 'WR-001']);
    expect(await get('orderBy=state')).to.deep.equal(['WR-003', 'WR-002', 'WR-001']);
    for (const f of ['createdAt', 'id', 'updatedAt', 'createdById']) expect(await get(`orderBy=${f}`)).to.have.length(3);
    expect(await get(`filter[jobId]=${b2.jobId}`)).to.deep.equal(['WR-002']);
    expect(await get(`filter[locationId_in]=${b.locationId}`)).to.deep.equal(['WR-001', 'WR-003']);
    expect(await get(`filter[createdById]=${b2.otherUserId}`)).to.deep.equal(['WR-002']);
    expect(await get('filter[state_in]=SENT,ACKNOWLEDGED')).to.deep.equal(['WR-001', 'WR-003']);
    expect(await get('filter[identifier_ends_with]=2')).to.deep.equal(['WR-002']);
    expect(await get('filter[needByDateDay_lt]=2026-11-10T00:00:00.000Z')).to.deep.equal(['WR-003']);
    expect(await get(`filter[id]=${ids.ack}`)).to.deep.equal(['WR-003']);
    expect(await get('filter[createdAt_lt]=2000-01-01T00:00:00.000Z&filter[updatedAt_gt]=2000-01-01T00:00:00.000Z')).to.deep.equal([]);
    expect(problemOf(await org.api.get('/warehouse-requests?filter[notes]=x'), 400).errors[0].field).to.equal('query.filter.notes');
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=locationId'), async () => {
    problemOf(await org.api.get('/warehouse-requests?orderBy=locationId'), 400);
  });

  it('allows a page size of 100', async () => {
    expectStatus(await org.api.get('/warehouse-requests?limit=100'), 200);
    expect(expectStatus(await org.api.get('/warehouse-requests?limit=2'), 200).body).to.have.length(2);
  });

  itDirect('rejects a page size over 100 on both lists, naming the cap', PRISM.invalidRequest('limit=101'), async () => {
    for (const path of ['/warehouse-requests', `/warehouse-requests/${ids.sent}/items`, `/warehouseRequests/${ids.sent}/items`] as const) {
      const p = problemOf(await org.api.get(`${path}?limit=101`), 400);
      expect(p.errors[0]).to.include({ field: 'query.limit' });
      expect(p.errors[0].message).to.contain('100');
    }
  });

  it('lists items under both spellings, by lineNumber, with every field', async () => {
    const a = expectStatus(await org.api.get(`/warehouse-requests/${ids.sent}/items`), 200).body;
    const c = expectStatus(await org.api.get(`/warehouseRequests/${ids.sent}/items`), 200).body;
    expect(a).to.deep.equal(c);
    expect(a.map((i: { lineNumber: number }) => i.lineNumber)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(a.map((i: { state: string }) => i.state)).to.have.members(['CANCELLED', 'DRAFT', 'PARTIAL_PICK', 'PICKED', 'REQUESTED', 'SHIPPED', 'UNAVAILABLE']);
    expect(a[0]).to.include({
      warehouseRequestId: ids.sent,
      state: 'PICKED',
      description: 'Studs',
      quantity: 120,
      pickedQuantity: 120,
      uom: 'EA',
      sku: 'LUM-2408',
      upc: '0820',
      mpn: 'SPF248',
      requisitionId: reqId,
      notes: 'straight',
      createdById: b.userId,
    });
    expect(a[1]).to.include({ requisitionId: reqId2, pickedQuantity: null, upc: null });
  });

  it('orders and filters items on every listed field', async () => {
    const get = async (q: string) =>
      expectStatus(await org.api.get(`/warehouseRequests/${ids.sent}/items?${q}`), 200).body.map((i: { description: string }) => i.description);
    expect(await get('orderBy=quantity&direction=DESC&limit=2')).to.deep.equal(['Anchors', 'Studs']);
    expect(await get('orderBy=pickedQuantity&filter[pickedQuantity_gt]=0')).to.deep.equal(['Glue', 'Drywall', 'Studs']);
    expect(await get('orderBy=sku&limit=3')).to.deep.equal(['Anchors', 'Drywall', 'Studs']);
    for (const f of ['createdAt', 'createdById', 'id', 'state', 'updatedAt', 'lineNumber', 'upc', 'mpn']) expect(await get(`orderBy=${f}`)).to.have.length(7);
    expect(await get('filter[state]=UNAVAILABLE')).to.deep.equal(['Anchors']);
    expect(await get(`filter[createdById]=${b2.otherUserId}`)).to.deep.equal(['Anchors']);
    expect(await get('filter[lineNumber_gte]=6')).to.deep.equal(['Tape', 'Sealant']);
    expect(await get('filter[quantity_lt]=5')).to.deep.equal(['Glue', 'Tape']);
    expect(await get('filter[upc]=0820&filter[mpn]=SPF248&filter[sku_in]=LUM-2408')).to.deep.equal(['Studs']);
    expect(await get('filter[createdAt_lt]=2000-01-01T00:00:00.000Z&filter[updatedAt_gt]=2000-01-01T00:00:00.000Z')).to.deep.equal([]);
    problemOf(await org.api.get(`/warehouse-requests/${ids.sent}/items?filter[description]=Glue`), 400);
  });

  it('answers missing and foreign requests with 404 under both spellings', async () => {
    const intruder = await newOrg();
    for (const base of ['/warehouse-requests', '/warehouseRequests'] as const) {
      await expectForeignLikeMissing(intruder, 'GET', `${base}/${ids.sent}`, `${base}/${MISSING_ID}`);
      await expectForeignLikeMissing(intruder, 'GET', `${base}/${ids.sent}/items`, `${base}/${MISSING_ID}/items`);
      problemOf(await org.api.get(`${base}/not-an-id`), 404);
    }
    expect(expectStatus(await intruder.api.get('/warehouse-requests'), 200).body).to.deep.equal([]);
  });

  describe('every item has a requisition (WarehouseRequestItem.requisitionId, as the spec has it)', () => {
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => expect.fail('accepted'),
        (e: any) => e,
      );

    it('the database refuses an item without one', async () => {
      const e = await failure(
        harness()
          .db('warehouse_request_items')
          .insert({ organization_id: org.id, warehouse_request_id: ids.ack, created_by_id: b.userId, line_number: 1, description: 'No requisition' }),
      );
      expect(e).to.include({ code: '23502', table: 'warehouse_request_items', column: 'requisition_id' });
    });

    it('the migration that requires it stops, naming the rows that have none, and invents nothing', async () => {
      // Undone and redone in a transaction that is rolled back: the database as it was before, with one such row.
      const trx = await harness().db.transaction();
      try {
        await requisitionRequired.down(trx);
        const [row] = await trx('warehouse_request_items')
          .insert({ organization_id: org.id, warehouse_request_id: ids.ack, created_by_id: b.userId, line_number: 1, description: 'Added directly' })
          .returning('id');
        const e = await failure(requisitionRequired.up(trx));
        expect(e.message).to.contain('1 row(s) of warehouse_request_items have no requisition_id').and.contain(row.id);
        expect(await trx('warehouse_request_items').where('id', row.id).first('requisition_id')).to.deep.equal({ requisition_id: null });
      } finally {
        await trx.rollback();
      }
    });

    it("a requisition that items come from is not deleted under them; the organization's deletion removes both", async () => {
      const other = await newOrg();
      const ob = await basics(other);
      const req = await requisition(other, ob);
      await warehouseRequest(other, ob, {}, [{ line_number: 1, requisition_id: req }]);
      const e = await failure(harness().db('requisitions').where({ organization_id: other.id, id: req }).del());
      expect(e).to.include({ code: '23503', table: 'warehouse_request_items' });
      // A deadlock with the capture worker appending that organization's entries (its deletion
      // cascades through captured tables) aborts one of the two: PostgreSQL's answer, retried as
      // any client retries a 40P01 (the service's own writes do: src/db/retry.ts).
      for (let attempt = 1; ; attempt++) {
        const deleted = await harness()
          .db('organizations')
          .where('id', other.id)
          .del()
          .then(
            () => undefined,
            (e: { code?: string; message?: string }) => e,
          );
        if (deleted === undefined) break;
        expect(deleted.code, String(deleted.message)).to.equal('40P01');
        expect(attempt).to.be.lessThan(5);
      }
      expect(await harness().db('warehouse_request_items').where('organization_id', other.id).first()).to.equal(undefined);
    });
  });
});
