import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { makeLocation, makeOrder, MadeOrder, softDeleteOrder } from './support/release-fixtures';
import { harness } from './support/harness';
import { cancelRelease, createRelease } from '../src/resources/releases/store';

describe('releases', () => {
  let org: TestOrg;
  let other: TestOrg;
  let priced: MadeOrder;
  let second: MadeOrder;
  let deletedOrder: MadeOrder;
  let locationId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    const db = harness().db;
    locationId = await makeLocation(org, 'Riverside MOB laydown yard');
    priced = await makeOrder(org, { purchase_order_number: 'J-1042-017' }, [
      { line_number: 1, description: 'Anchor bolts', units_of_measure: 'EA', unit_price: 12.345 },
      { line_number: 2, description: 'EMT conduit per hundred', units_of_measure: 'C', unit_price: 48.5 },
      { line_number: 3, description: 'THHN wire per thousand', units_of_measure: 'M', unit_price: 412.5, unit_discount: 10 },
      { line_number: 4, description: 'Unit-less', units_of_measure: null, unit_price: 2.5 },
      { line_number: 5, description: 'Unpriced', units_of_measure: 'EA', unit_price: null },
      { line_number: 6, description: 'Blank unit, odd discount', units_of_measure: '', unit_price: 1.99, unit_discount: 33.3333 },
    ]);
    second = await makeOrder(org, { purchase_order_number: 'J-1042-018' }, [{ line_number: 1, description: 'Rebar', units_of_measure: 'EA', unit_price: 10 }]);
    deletedOrder = await makeOrder(org, {}, [{ line_number: 1, description: 'Gone', units_of_measure: 'EA', unit_price: 1 }]);
    const at = (d: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, d)).toISOString();
    ids.costed = await createRelease(db, org.id, {
      orderId: priced.id,
      releaseNumber: 'R1',
      needByDateDay: '2026-11-10T00:00:00.000Z',
      needByWindow: 'AM',
      deliveryLocationId: locationId,
      createdById: org.userId,
      createdAt: at(1),
      items: [
        { itemId: priced.items[1], quantityReleased: 3 },
        { itemId: priced.items[2], quantityReleased: 2400, backorderQuantity: 100 },
        { itemId: priced.items[3], quantityReleased: 1000 },
        { itemId: priced.items[4], quantityReleased: 4 },
        { itemId: priced.items[5], quantityReleased: 7 },
        { itemId: priced.items[6], quantityReleased: 3 },
      ],
    });
    ids.undated = await createRelease(db, org.id, { orderId: priced.id, releaseNumber: 'R2', createdAt: at(2), items: [] });
    ids.cancelled = await createRelease(db, org.id, {
      orderId: priced.id,
      releaseNumber: 'R3',
      needByDateDay: '2026-11-12T00:00:00.000Z',
      createdAt: at(3),
      items: [],
    });
    await cancelRelease(db, org.id, ids.cancelled, 'Schedule moved');
    ids.late = await createRelease(db, org.id, {
      orderId: second.id,
      releaseNumber: 'R4',
      needByDateDay: '2026-11-20T00:00:00.000Z',
      createdAt: at(4),
      items: [{ itemId: second.items[1], quantityReleased: 5 }],
    });
    ids.early = await createRelease(db, org.id, {
      orderId: second.id,
      releaseNumber: 'R5',
      needByDateDay: '2026-11-05T00:00:00.000Z',
      createdAt: at(5),
      items: [],
    });
    ids.onDeleted = await createRelease(db, org.id, {
      orderId: deletedOrder.id,
      releaseNumber: 'R6',
      createdAt: at(6),
      items: [{ itemId: deletedOrder.items[1], quantityReleased: 1 }],
    });
    await softDeleteOrder(org, deletedOrder.id);
    const foreignOrder = await makeOrder(other, {}, []);
    await createRelease(db, other.id, { orderId: foreignOrder.id, releaseNumber: 'X1', items: [] });
  });

  describe('totalCost', () => {
    it('computes every release item per the formula (M, C, EA, blank units, discounts, unpriced lines, cents rounding)', async () => {
      const list = expectStatus(await org.api.get(`/orders/${priced.id}/releases`), 200).body;
      const release = list.find((r) => r.id === ids.costed)!;
      const byLine = Object.fromEntries(release.releaseItems.map((ri) => [ri.lineItemId, ri]));
      const cost = (line: number) => byLine[priced.items[line]].totalCost;
      expect(cost(1)).to.equal(37.04); // 3 x 12.345 = 37.035: half rounds up in numeric (float would give 37.03)
      expect(cost(2)).to.equal(1164); // C: 2400 x 48.5 / 100
      expect(cost(3)).to.equal(371.25); // M: 1000 x 412.5 x 0.9 / 1000
      expect(cost(4)).to.equal(10); // no unit: factor 1
      expect(cost(5)).to.equal(0); // unpriced
      expect(cost(6)).to.equal(3.98); // blank unit, 33.3333 % off
      expect(release.totalCost).to.equal(37.04 + 1164 + 371.25 + 10 + 0 + 3.98);
    });

    it('returns the line item with unitPrice (0 when unpriced) and extPrice equal to totalCost, and backorderQuantity 0 when none', async () => {
      const [release] = (expectStatus(await org.api.get(`/releases?orderId=${priced.id}&needByDateFrom=2026-11-10`), 200).body.data as any[]).filter(
        (r) => r.id === ids.costed,
      );
      for (const ri of release.releaseItems) {
        expect(ri.lineItem.id).to.equal(ri.lineItemId);
        expect(ri.lineItem.extPrice).to.equal(ri.totalCost);
        expect(ri.releaseId).to.equal(ids.costed);
      }
      const unpriced = release.releaseItems.find((ri: any) => ri.lineItemId === priced.items[5]);
      expect(unpriced.lineItem).to.deep.equal({ id: priced.items[5], description: 'Unpriced', unitPrice: 0, extPrice: 0 });
      const c = release.releaseItems.find((ri: any) => ri.lineItemId === priced.items[2]);
      expect(c).to.include({ quantityReleased: 2400, backorderQuantity: 100, requisitionItemId: null });
      expect(c.lineItem.unitPrice).to.equal(48.5);
      expect(release.releaseItems.find((ri: any) => ri.lineItemId === priced.items[1]).backorderQuantity).to.equal(0);
    });

    it('reflects the current line item price (computed at request time)', async () => {
      const db = harness().db;
      const own = await newOrg();
      const sole = await makeOrder(own, {}, [{ line_number: 1, description: 'Repriced', units_of_measure: 'EA', unit_price: 2 }]);
      await createRelease(db, own.id, { orderId: sole.id, releaseNumber: 'RP', items: [{ itemId: sole.items[1], quantityReleased: 10 }] });
      expect(expectStatus(await own.api.get(`/orders/${sole.id}/releases`), 200).body[0].totalCost).to.equal(20);
      await db('items').where({ id: sole.items[1] }).update({ unit_price: 3 });
      expect(expectStatus(await own.api.get(`/orders/${sole.id}/releases`), 200).body[0].totalCost).to.equal(30);
    });
  });

  describe('GET /orders/{orderId}/releases', () => {
    it('is a bare array, newest first, without cancelled releases by default', async () => {
      const res = expectStatus(await org.api.get(`/orders/${priced.id}/releases`), 200);
      expect(res.body).to.be.an('array');
      expect(res.body.map((r) => r.id)).to.deep.equal([ids.undated, ids.costed]);
    });

    it('includes cancelled releases with includeCancelled=true', async () => {
      const res = expectStatus(await org.api.get(`/orders/${priced.id}/releases?includeCancelled=true`), 200);
      expect(res.body.map((r) => r.id)).to.deep.equal([ids.cancelled, ids.undated, ids.costed]);
      expect(res.body[0].cancelledAt).to.match(/Z$/);
      expect(res.body[0].cancelledReason).to.equal('Schedule moved');
    });

    it('returns every field, the parent PO number and only id and name of the delivery location', async () => {
      const r = expectStatus(await org.api.get(`/orders/${priced.id}/releases`), 200).body.find((x) => x.id === ids.costed)!;
      expect(r).to.include({
        orderId: priced.id,
        purchaseOrderNumber: 'J-1042-017',
        releaseNumber: 'R1',
        needByDateDay: '2026-11-10T00:00:00.000Z',
        needByWindow: 'AM',
        cancelledAt: null,
        createdById: org.userId,
      });
      expect(r.deliveryLocation).to.deep.equal({ id: locationId, name: 'Riverside MOB laydown yard' });
      const undated = expectStatus(await org.api.get(`/orders/${priced.id}/releases`), 200).body.find((x) => x.id === ids.undated)!;
      expect(undated).to.include({ deliveryLocation: null, totalCost: 0, needByDateDay: null });
      expect(undated.releaseItems).to.deep.equal([]);
    });

    it('answers 404 for a missing, deleted or foreign order, never 403', async () => {
      problemOf(await org.api.get(`/orders/${MISSING_ID}/releases`), 404);
      problemOf(await org.api.get(`/orders/not-an-id/releases`), 404);
      problemOf(await org.api.get(`/orders/${deletedOrder.id}/releases`), 404);
      await expectForeignLikeMissing(other, 'GET', `/orders/${priced.id}/releases`, `/orders/${MISSING_ID}/releases`);
    });

    it('rejects pagination and filters (unknown query parameters)', async () => {
      problemOf(await org.api.get(`/orders/${priced.id}/releases?limit=1`), 400);
    });
  });

  describe('GET /releases', () => {
    const list = async (q = '') =>
      expectStatus(await org.api.get(`/releases${q}`), 200).body as { meta: { total: number; limit: number; offset: number }; data: { id: string }[] };

    it('returns {meta, data} newest first with defaults limit 100, offset 0, excluding cancelled releases and releases of deleted orders', async () => {
      const page = await list();
      expect(page.meta).to.deep.equal({ total: 4, limit: 100, offset: 0 });
      expect(page.data.map((r) => r.id)).to.deep.equal([ids.early, ids.late, ids.undated, ids.costed]);
    });

    it('includes cancelled releases with includeCancelled=true', async () => {
      const page = await list('?includeCancelled=true');
      expect(page.meta.total).to.equal(5);
      expect(page.data.map((r) => r.id))
        .to.include(ids.cancelled)
        .and.not.include(ids.onDeleted);
    });

    it('filters by orderId, and answers 404 for an orderId that does not resolve (missing, deleted, foreign, empty)', async () => {
      const page = await list(`?orderId=${second.id}`);
      expect(page.data.map((r) => r.id)).to.deep.equal([ids.early, ids.late]);
      expect(page.meta.total).to.equal(2);
      problemOf(await org.api.get(`/releases?orderId=${MISSING_ID}`), 404);
      problemOf(await org.api.get(`/releases?orderId=${deletedOrder.id}`), 404);
      problemOf(await org.api.get('/releases?orderId='), 404);
      problemOf(await other.api.get(`/releases?orderId=${priced.id}`), 404);
    });

    it('applies needByDate bounds inclusively and independently, excluding releases without a day', async () => {
      expect((await list('?needByDateFrom=2026-11-10T00:00:00.000Z')).data.map((r) => r.id)).to.deep.equal([ids.late, ids.costed]);
      expect((await list('?needByDateTo=2026-11-10T00:00:00.000Z')).data.map((r) => r.id)).to.deep.equal([ids.early, ids.costed]);
      const both = await list('?needByDateFrom=2026-11-05T00:00:00.000Z&needByDateTo=2026-11-10T00:00:00.000Z');
      expect(both.data.map((r) => r.id)).to.deep.equal([ids.early, ids.costed]);
      expect(both.meta.total).to.equal(2);
      expect((await list('?needByDateFrom=2026-11-20&needByDateTo=2026-11-20')).data.map((r) => r.id)).to.deep.equal([ids.late]);
      expect((await list('?needByDateFrom=2026-11-10&includeCancelled=true')).data.map((r) => r.id)).to.deep.equal([ids.late, ids.cancelled, ids.costed]);
    });

    it('pages with limit and offset; offset past the end keeps the true total; limit 0 returns only the total', async () => {
      const page = await list('?limit=2&offset=1');
      expect(page.meta).to.deep.equal({ total: 4, limit: 2, offset: 1 });
      expect(page.data.map((r) => r.id)).to.deep.equal([ids.late, ids.undated]);
      expect(await list('?offset=50')).to.deep.equal({ meta: { total: 4, limit: 100, offset: 50 }, data: [] });
      expect(await list('?limit=0')).to.deep.equal({ meta: { total: 4, limit: 0, offset: 0 }, data: [] });
    });

    it('caps limit at 500 silently and shows it in meta.limit', async () => {
      const page = await list('?limit=5000');
      expect(page.meta.limit).to.equal(500);
      expect(page.data).to.have.length(4);
      expect((await list('?limit=500')).meta.limit).to.equal(500);
      expect((await list('?limit=99999999999')).meta.limit).to.equal(500);
      expect((await list('?limit=499')).meta.limit).to.equal(499);
    });

    it('rejects a negative limit or offset with the spec messages', async () => {
      expect(problemOf(await org.api.get('/releases?limit=-1'), 400).errors[0].message).to.equal('limit must be a non-negative integer');
      expect(problemOf(await org.api.get('/releases?offset=-5'), 400).errors[0].message).to.equal('offset must be a non-negative integer');
    });

    it('does not support filter[...] or orderBy', async () => {
      problemOf(await org.api.get(`/releases?filter[orderId]=${priced.id}`), 400);
      problemOf(await org.api.get('/releases?orderBy=createdAt'), 400);
      problemOf(await org.api.get('/releases?direction=ASC'), 400);
    });

    it("never shows another organization's releases", async () => {
      const page = expectStatus(await other.api.get('/releases'), 200).body;
      expect(page.meta.total).to.equal(1);
      expect(page.data[0].releaseNumber).to.equal('X1');
    });
  });
});
