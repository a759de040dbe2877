import { expect } from 'chai';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { harness } from './support/harness';
import { loadDemoData } from '../seeds/demo';

describe('demo data: releases, change orders, bills of materials', () => {
  let org: TestOrg;
  before(async function () {
    this.timeout(60_000);
    org = await newOrg();
    await loadDemoData(harness().db, org.id);
  });

  it('has a hold-for-release order with active and cancelled releases, costed per C, M and EA', async () => {
    const all = expectStatus(await org.api.get('/releases?includeCancelled=true'), 200).body;
    const mine = all.data.filter((r) => r.purchaseOrderNumber === 'J-1042-HFR-01');
    expect(mine.map((r) => r.releaseNumber)).to.deep.equal(['J-1042-HFR-01-R3', 'J-1042-HFR-01-R2', 'J-1042-HFR-01-R1']);
    expect(mine[0].cancelledAt).to.not.equal(null);
    // R1: 2400 x 48.5 / 100 + 5000 x 412.5 x 0.9 / 1000
    expect(mine[2].totalCost).to.equal(1164 + 1856.25);
    // R2: 150 x 1.85 + unpriced strut
    expect(mine[1].totalCost).to.equal(277.5);
  });

  it("prices every order line by the service's rule, in items and in the change orders' lines", async () => {
    const items = expectStatus(await org.api.get('/items?limit=2500'), 200).body.data as any[];
    const factor = (unit: string | null) => (unit === 'M' ? 1000 : unit === 'C' ? 100 : 1);
    const cents = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;
    const wrong = items
      .filter((i) => {
        const expected =
          i.quantity === null || i.unitPrice === null ? null : cents((i.quantity * i.unitPrice * (1 - (i.unitDiscount ?? 0) / 100)) / factor(i.unitsOfMeasure));
        return i.extPrice !== expected || (expected !== null && i.extPriceIncludingTax === null);
      })
      .map((i) => `${i.id} ${i.quantity} x ${i.unitPrice} ${i.unitsOfMeasure}: ${i.extPrice} / ${i.extPriceIncludingTax}`);
    expect(items.length).to.be.greaterThan(10);
    expect(wrong).to.deep.equal([]);
    const changeOrders = expectStatus(await org.api.get('/changeOrders?filter[draft]=true'), 200).body as any[];
    const lines = [...changeOrders, ...(expectStatus(await org.api.get('/changeOrders'), 200).body as any[])].flatMap((c) => [
      ...c.addedItems,
      ...c.deletedItems,
    ]);
    expect(lines.length).to.be.greaterThan(0);
    expect(lines.filter((l: any) => l.unitPrice !== null && l.quantity !== null && l.extPrice === null)).to.deep.equal([]);
  });

  it('has an order with three change-order versions, one a draft', async () => {
    const listed = expectStatus(await org.api.get('/changeOrders'), 200).body;
    const drafts = expectStatus(await org.api.get('/changeOrders?filter[draft]=true'), 200).body;
    expect(listed.map((c) => c.versionNumber)).to.include.members([1, 2]);
    expect(drafts.map((c) => c.versionNumber)).to.include(3);
    const co2 = listed.find((c) => c.label?.startsWith('CO-2'));
    expect(co2!.deletedItems).to.have.length(1);
    expect(co2!.modifiedOrderValues).to.have.property('notes', null);
  });

  it("has job J-1042's bill of materials with WBS values", async () => {
    const bom = expectStatus(await org.api.get('/jobs/J-1042/billOfMaterials'), 200).body;
    const items = expectStatus(await org.api.get(`/billOfMaterials/${bom.id}/items`), 200).body;
    const types = new Set(
      items.flatMap((i: { workBreakdownStructureValues: { structureType: string }[] }) => i.workBreakdownStructureValues.map((v) => v.structureType)),
    );
    expect([...types]).to.include.members(['Cost Code', 'Floor', 'Phase', 'Phase Code', 'Section', 'System']);
  });

  it('has an order with more than 10 completed change orders, paged 10 at a time', async () => {
    const order = expectStatus(await org.api.get('/orders?filter[purchaseOrderNumber]=J-1042-0009'), 200).body[0];
    const first = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${order.id}&orderBy=createdAt&limit=100`), 200).body;
    const rest = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${order.id}&orderBy=createdAt&offset=10`), 200).body;
    expect(first).to.have.length(10);
    expect([...first, ...rest].map((c) => c.versionNumber)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(rest[1].addedItems).to.have.length(1);
  });

  it('has a hold-for-release line without a unit, priced each, with a release against it', async () => {
    const order = expectStatus(await org.api.get('/orders?filter[purchaseOrderNumber]=J-1042-0005'), 200).body[0];
    const items = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    const blank = items.find((i) => i.unitsOfMeasure === null);
    expect(blank).to.include({ quantity: 6, unitPrice: 212.4, extPrice: 1274.4 });
    const [release] = expectStatus(await org.api.get(`/orders/${order.id}/releases`), 200).body;
    expect(release.releaseNumber).to.equal('J-1042-0005-R1');
    expect(release.releaseItems[0]).to.include({ lineItemId: blank!.id, quantityReleased: 2, totalCost: 424.8 });
  });
});
