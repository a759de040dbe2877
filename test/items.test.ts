import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { insertCode, insertCostCategory, insertJob, insertPhase, insertTaxCode, insertVendor, makeOrder, softDeleteOrder } from './support/purchasing-fixtures';
import { itDirect, PRISM } from './support/proxy';

describe('order items', () => {
  let org: TestOrg;
  let other: TestOrg;
  let orderA: string;
  let orderB: string;
  let deletedOrder: string;
  let refs: Record<string, string>;
  let jobA: string;
  let jobB: string;
  let vendorA: string;
  let vendorB: string;
  const itemIds = async (orderId: string) =>
    (await harness().db('items').where({ order_id: orderId }).orderBy('line_number').select('id')).map((r) => r.id as string);

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    jobA = await insertJob(org.id);
    jobB = await insertJob(org.id);
    vendorA = await insertVendor(org.id);
    vendorB = await insertVendor(org.id);
    refs = {
      phase: await insertPhase(org.id, '03-300', 'Cast-in-place concrete'),
      subJob: await insertPhase(org.id, 'SJ-EAST', 'East wing'),
      costCategory: await insertCostCategory(org.id, 'MAT', 'Materials'),
      costType: await insertCode('cost_types', org.id, 'M', 'Material cost'),
      gl: await insertCode('gl_codes', org.id, '5100-MAT', 'Materials'),
      tax: await insertTaxCode(org.id, 'TX-CA', 0.0725),
      itemCode: await insertCode('item_codes', org.id, 'REBAR-4', 'Reinforcing bar #4'),
    };
    orderA = await makeOrder(org, { job_id: jobA, vendor_id: vendorA }, [
      {
        line_number: 2,
        description: '#4 rebar, grade 60, 20 ft',
        quantity: 1200,
        units_of_measure: 'C',
        unit_price: 86.5,
        unit_discount: 2.5,
        ext_price: 1012.05,
        universal_product_code: '012345678905',
        vendor_part_number: 'FRG-RB4-20',
        need_by_date: '2026-10-08T00:00:00.000Z',
        phase_id: refs.phase,
        sub_job_id: refs.subJob,
        cost_category_id: refs.costCategory,
        cost_type_id: refs.costType,
        gl_code_id: refs.gl,
        tax_code_id: refs.tax,
        item_code_id: refs.itemCode,
        item_code_text: 'REBAR',
      },
      {
        line_number: 1,
        description: 'Mesh sheet',
        quantity: 40,
        units_of_measure: 'EA',
        vendor_part_number: 'FRG-WWM-820',
        need_by_date: '2026-10-02T00:00:00.000Z',
      },
      { line_number: 3, description: 'Tie wire', quantity: 5, units_of_measure: 'EA', universal_product_code: '099999999999' },
    ]);
    orderB = await makeOrder(org, { job_id: jobB, vendor_id: vendorB }, [
      { line_number: 1, description: 'Conduit', quantity: 10 },
      { line_number: 2, description: 'Fittings', quantity: 20 },
    ]);
    deletedOrder = await makeOrder(org, { job_id: jobA, vendor_id: vendorA }, [{ line_number: 1, description: 'Gone' }]);
    await softDeleteOrder(org.id, deletedOrder);
  });

  it("lists an order's items by lineNumber ascending by default", async () => {
    const list = expectStatus(await org.api.get(`/orders/${orderA}/items`), 200).body as any[];
    expect(list.map((i) => i.lineNumber)).to.deep.equal([1, 2, 3]);
    expect(list.every((i) => i.orderId === orderA)).to.equal(true);
    const desc = expectStatus(await org.api.get(`/orders/${orderA}/items?direction=DESC`), 200).body as any[];
    expect(desc.map((i) => i.lineNumber)).to.deep.equal([3, 2, 1]);
    const upc = expectStatus(await org.api.get(`/orders/${orderA}/items?orderBy=universalProductCode&direction=DESC`), 200).body as any[];
    expect(upc.map((i) => i.universalProductCode)).to.deep.equal([null, '099999999999', '012345678905']);
    for (const f of ['backorderLeadTime', 'createdAt', 'id', 'needByDate', 'updatedAt'])
      expectStatus(await org.api.get(`/orders/${orderA}/items?orderBy=${f}`), 200);
  });

  itDirect('rejects an orderBy the contract does not list for order items', PRISM.invalidRequest('orderBy=description'), async () => {
    problemOf(await org.api.get(`/orders/${orderA}/items?orderBy=description`), 400);
  });

  it("filters an order's items on the allowed fields", async () => {
    const lines = async (q: string) => (expectStatus(await org.api.get(`/orders/${orderA}/items?${q}`), 200).body as any[]).map((i) => i.lineNumber);
    expect(await lines('filter[vendorPartNumber_starts_with]=FRG-RB')).to.deep.equal([2]);
    expect(await lines('filter[universalProductCode]=099999999999')).to.deep.equal([3]);
    expect(await lines('filter[needByDate_lt]=2026-10-05T00:00:00Z')).to.deep.equal([1]);
    problemOf(await org.api.get(`/orders/${orderA}/items?filter[lineNumber]=1`), 400);
    problemOf(await org.api.get(`/orders/${orderA}/items?filter[description]=x`), 400);
  });

  it('404s the items of a missing, deleted or foreign order', async () => {
    problemOf(await org.api.get(`/orders/${deletedOrder}/items`), 404);
    await expectForeignLikeMissing(other, 'GET', `/orders/${orderA}/items`, `/orders/${MISSING_ID}/items`);
  });

  it('reads one item with its nested objects', async () => {
    const [, id] = await itemIds(orderA);
    const item = expectStatus(await org.api.get(`/items/${id}`), 200).body;
    expect(item).to.deep.include({
      id,
      lineNumber: 2,
      orderId: orderA,
      quantity: 1200,
      unitsOfMeasure: 'C',
      unitPrice: 86.5,
      unitDiscount: 2.5,
      extPrice: 1012.05,
      itemCodeId: refs.itemCode,
      itemCodeText: 'REBAR',
      itemCode: { id: refs.itemCode, code: 'REBAR-4', description: 'Reinforcing bar #4' },
      phase: { id: refs.phase, code: '03-300', description: 'Cast-in-place concrete' },
      subJob: { id: refs.subJob, code: 'SJ-EAST', description: 'East wing' },
      costCategory: { id: refs.costCategory, code: 'MAT', description: 'Materials' },
      costType: { id: refs.costType, code: 'M', description: 'Material cost' },
      glCode: { id: refs.gl, code: '5100-MAT' },
      taxCode: { id: refs.tax, code: 'TX-CA', taxPercent: 0.0725 },
      needByDate: '2026-10-08T00:00:00.000Z',
      costsInventoryItemLedgerEntry: null,
    });
    const [plain] = await itemIds(orderB);
    const bare = expectStatus(await org.api.get(`/items/${plain}`), 200).body;
    expect(bare).to.include({ itemCode: null, phase: null, glCode: null, taxCode: null, costCategory: null, costType: null, subJob: null, unitPrice: null });
  });

  it('404s an item of a deleted order, and a foreign item like a missing one', async () => {
    const [gone] = await itemIds(deletedOrder);
    problemOf(await org.api.get(`/items/${gone}`), 404);
    const [id] = await itemIds(orderA);
    await expectForeignLikeMissing(other, 'GET', `/items/${id}`, `/items/${MISSING_ID}`);
  });

  describe('bulk GET /items', () => {
    it('returns meta and flattened items, newest first, limit 500 by default', async () => {
      const res = expectStatus(await org.api.get('/items'), 200).body;
      expect(res.meta).to.deep.equal({ total: 5, limit: 500, offset: 0 });
      const created = res.data.map((i: any) => i.createdAt + i.id);
      expect(created).to.deep.equal([...created].sort().reverse());
      const rebar = res.data.find((i: any) => i.lineNumber === 2 && i.orderId === orderA);
      expect(rebar).to.deep.include({
        jobId: jobA,
        vendorId: vendorA,
        phaseCodeCode: '03-300',
        costCategoryCode: 'MAT',
        glCodeCode: '5100-MAT',
        taxCodeCode: 'TX-CA',
        costTypeCode: 'M',
        itemCode: { id: refs.itemCode, code: 'REBAR-4', description: 'Reinforcing bar #4' },
      });
      expect(rebar).to.not.have.property('phase');
      expect(res.data.map((i: any) => i.description)).to.not.include('Gone');
    });

    it('filters by order, job and vendor in both single and list forms; total counts the filtered set', async () => {
      const page = async (q: string) => expectStatus(await org.api.get(`/items?${q}`), 200).body;
      expect((await page(`filter[orderId]=${orderB}`)).meta.total).to.equal(2);
      expect((await page(`filter[orderId_in][]=${orderA}&filter[orderId_in][]=${orderB}`)).meta.total).to.equal(5);
      expect((await page(`filter[jobId]=${jobA}`)).data.every((i: any) => i.jobId === jobA)).to.equal(true);
      expect((await page(`filter[jobId]=${jobA}`)).meta.total).to.equal(3);
      expect((await page(`filter[jobId_in]=${jobA},${jobB}`)).meta.total).to.equal(5);
      expect((await page(`filter[vendorId]=${vendorB}`)).meta.total).to.equal(2);
      expect((await page(`filter[vendorId_in][]=${vendorA}`)).meta.total).to.equal(3);
      expect((await page(`filter[jobId]=${MISSING_ID}`)).meta.total).to.equal(0);
      // Counted without joining orders when the filters are the item's own (items of the deleted order left out).
      expect((await page(`filter[orderId]=${deletedOrder}`)).meta).to.deep.equal({ total: 0, limit: 500, offset: 0 });
      expect((await page('filter[lineNumber]=1')).meta.total).to.equal(2);
      expect((await page('filter[lineNumber]=1&filter[jobId]=' + jobA)).meta.total).to.equal(1);
      const byLine = await page('filter[lineNumber_gte]=2&orderBy=lineNumber&direction=ASC&limit=2');
      expect(byLine.meta).to.deep.equal({ total: 3, limit: 2, offset: 0 });
      expect(byLine.data.map((i: any) => i.lineNumber)).to.deep.equal([2, 2]);
      expect((await page('filter[vendorPartNumber_contains]=wwm')).data.map((i: any) => i.description)).to.deep.equal(['Mesh sheet']);
      problemOf(await org.api.get(`/items?filter[jobId_not]=${jobA}`), 400);
      problemOf(await org.api.get('/items?filter[description]=x'), 400);
    });

    it('pages with offset and keeps the total', async () => {
      const all = expectStatus(await org.api.get('/items?orderBy=id'), 200).body;
      const p = expectStatus(await org.api.get('/items?orderBy=id&limit=2&offset=2'), 200).body;
      expect(p.meta).to.deep.equal({ total: 5, limit: 2, offset: 2 });
      expect(p.data.map((i: any) => i.id)).to.deep.equal(all.data.slice(2, 4).map((i: any) => i.id));
      const past = expectStatus(await org.api.get('/items?offset=50'), 200).body;
      expect(past).to.deep.equal({ meta: { total: 5, limit: 500, offset: 50 }, data: [] });
    });

    it('allows a limit up to 2500', async () => {
      expect(expectStatus(await org.api.get('/items?limit=2500'), 200).body.meta.limit).to.equal(2500);
    });

    itDirect('rejects a limit of 2501 or 0', PRISM.invalidRequest('limit=2501, limit=0'), async () => {
      const p = problemOf(await org.api.get('/items?limit=2501'), 400);
      expect(p.errors[0].field).to.equal('query.limit');
      problemOf(await org.api.get('/items?limit=0'), 400);
    });

    it('returns a 2500-item page in a fixed number of statements', async () => {
      const big = await newOrg();
      const rows = Array.from({ length: 2600 }, (_, i) => ({ line_number: i + 1, description: `Line ${i + 1}` }));
      await makeOrder(big, {}, rows);
      const db = harness().db;
      let statements = 0;
      const count = () => statements++;
      db.on('query', count);
      try {
        const res = expectStatus(await big.api.get('/items?limit=2500'), 200).body;
        expect(res.meta.total).to.equal(2600);
        expect(res.data).to.have.length(2500);
      } finally {
        db.removeListener('query', count);
      }
      // Authentication plus the count and the page, never a statement per item.
      expect(statements).to.be.at.most(6);
    });

    it("shows only the caller's items", async () => {
      expect(expectStatus(await other.api.get('/items'), 200).body).to.deep.equal({ meta: { total: 0, limit: 500, offset: 0 }, data: [] });
    });
  });
});
