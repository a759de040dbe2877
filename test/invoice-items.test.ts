import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { MISSING_ID } from './support/tenancy';
import { Basics, basics, invoice } from './support/billing-fixtures';
import { harness } from './support/harness';
import { itDirect, PRISM } from './support/proxy';

describe('invoice items', () => {
  let org: TestOrg;
  let b: Basics;
  let other: Basics;
  const ids: Record<string, string> = {};

  before(async () => {
    org = await newOrg();
    b = await basics(org);
    other = await basics(org);
    const db = harness().db;
    const [tc] = await db('tax_codes').insert({ organization_id: org.id, code: 'TX-CA', tax_percent: 0.0725 }).returning('id');
    const [ph] = await db('phases').insert({ organization_id: org.id, code: '15-100', description: 'Plumbing' }).returning('id');
    const [cc] = await db('cost_categories').insert({ organization_id: org.id, code: 'M', description: 'Material' }).returning('id');
    const [gl] = await db('gl_codes').insert({ organization_id: org.id, code: '5100-MAT' }).returning('id');
    const [ct] = await db('cost_types').insert({ organization_id: org.id, code: 'MAT' }).returning('id');
    const [ic] = await db('item_codes').insert({ organization_id: org.id, code: 'CU-L-075', description: 'Copper pipe' }).returning('id');
    ids.first = await invoice(org, b, { invoice_number: 'FIRST' }, [
      {
        line_number: 2,
        description: 'Elbows',
        ship_quantity: 12,
        unit_price: 4.5,
        ext_price: 54,
        has_exception: true,
        notes: 'price differs',
        tax_code_id: tc.id,
        tax_rate: 0.0725,
        phase_id: ph.id,
        cost_category_id: cc.id,
        gl_code_id: gl.id,
        cost_type_id: ct.id,
        item_code_id: ic.id,
        item_code_text: 'CU-ELB',
        manufacturer_part_number: 'W02030',
        universal_product_code: '039923040209',
        ext_price_including_tax: 57.92,
        extended_quantity: 12,
        requested_uom: 'EA',
        pricing_uom: 'EA',
        extended_uom: 'EA',
        scaled_unit_price: 4.5,
        units_of_measure: 'EA',
      },
      { line_number: 1, description: 'Pipe', ship_quantity: 40, unit_price: 58.75, ext_price: 2350 },
      { line_number: 3, description: 'Caps', ship_quantity: 4, unit_price: 1, ext_price: 4 },
    ]);
    await new Promise((r) => setTimeout(r, 5));
    ids.second = await invoice(org, other, { invoice_number: 'SECOND' }, [{ line_number: 1, description: 'Lift rental', has_exception: true }]);
    ids.deleted = await invoice(org, b, { invoice_number: 'DELETED', deleted_at: new Date() }, [{ line_number: 1, description: 'Ghost' }]);
  });

  it('lists the items of an invoice by lineNumber, with code strings and hasException', async () => {
    const items = expectStatus(await org.api.get(`/invoices/${ids.first}/items`), 200).body;
    expect(items.map((i) => i.lineNumber)).to.deep.equal([1, 2, 3]);
    expect(items[1]).to.include({
      invoiceId: ids.first,
      description: 'Elbows',
      shipQuantity: 12,
      unitPriceFloat: 4.5,
      extPriceFloat: 54,
      unitsOfMeasure: 'EA',
      taxCode: 'TX-CA',
      taxRate: 0.0725,
      phaseCode: '15-100',
      costCategory: 'M',
      hasException: true,
      notes: 'price differs',
    });
    expect(items[1]).to.not.have.property('glCodeCode');
    const desc = expectStatus(await org.api.get(`/invoices/${ids.first}/items?orderBy=lineNumber&direction=DESC`), 200).body;
    expect(desc.map((i) => i.lineNumber)).to.deep.equal([3, 2, 1]);
    const flagged = expectStatus(await org.api.get(`/invoices/${ids.first}/items?filter[hasException]=true`), 200).body;
    expect(flagged.map((i) => i.description)).to.deep.equal(['Elbows']);
    const text = expectStatus(await org.api.get(`/invoices/${ids.first}/items?filter[description_in]=Pipe,Caps&filter[notes]=x`), 200).body;
    expect(text).to.deep.equal([]);
    problemOf(await org.api.get(`/invoices/${ids.first}/items?filter[invoiceId]=${ids.first}`), 400);
    problemOf(await org.api.get(`/invoices/${ids.deleted}/items`), 404);
    problemOf(await org.api.get(`/invoices/${MISSING_ID}/items`), 404);
  });

  it('pulls items in bulk with meta, bulk-only fields and the parent job and vendor', async () => {
    const res = expectStatus(await org.api.get('/invoice-items'), 200).body;
    expect(res.meta).to.deep.equal({ total: 4, limit: 500, offset: 0 });
    // Default createdAt DESC: the second invoice's item first; the deleted invoice's item never.
    expect(res.data[0].description).to.equal('Lift rental');
    expect(res.data.map((i) => i.description)).to.not.include('Ghost');
    const elbows = res.data.find((i) => i.description === 'Elbows');
    expect(elbows).to.include({
      manufacturerPartNumber: 'W02030',
      universalProductCode: '039923040209',
      extPriceFloatIncludingTax: 57.92,
      extendedQuantity: 12,
      requestedUOM: 'EA',
      pricingUOM: 'EA',
      extendedUOM: 'EA',
      phaseCodeCode: '15-100',
      costCategoryCode: 'M',
      glCodeCode: '5100-MAT',
      taxCodeCode: 'TX-CA',
      costTypeCode: 'MAT',
      jobId: b.jobId,
      vendorId: b.vendorId,
      scaledUnitPrice: 4.5,
      itemCodeText: 'CU-ELB',
    });
    expect(elbows!.itemCode).to.deep.include({ code: 'CU-L-075', description: 'Copper pipe' });
    expect(res.data.find((i) => i.description === 'Pipe')!.itemCode).to.equal(null);
  });

  it('filters the bulk pull by invoice, job and vendor (eq and _in) and hasException; total counts the whole set', async () => {
    const get = async (q: string) => expectStatus(await org.api.get(`/invoice-items?${q}`), 200).body;
    expect((await get(`filter[invoiceId]=${ids.second}`)).meta.total).to.equal(1);
    expect((await get(`filter[invoiceId_in]=${ids.first},${ids.second}`)).meta.total).to.equal(4);
    expect((await get(`filter[jobId]=${other.jobId}`)).data.map((i) => i.description)).to.deep.equal(['Lift rental']);
    expect((await get(`filter[jobId_in][]=${b.jobId}`)).meta.total).to.equal(3);
    expect((await get(`filter[vendorId]=${b.vendorId}`)).meta.total).to.equal(3);
    expect((await get(`filter[vendorId_in]=${other.vendorId},${MISSING_ID}`)).meta.total).to.equal(1);
    expect((await get('filter[hasException]=true')).meta.total).to.equal(2);
    // The deleted invoice's item is never counted, whichever way the total is computed.
    expect((await get(`filter[invoiceId]=${ids.deleted}`)).meta.total).to.equal(0);
    const page = await get('limit=1&offset=1&orderBy=lineNumber&direction=ASC');
    expect(page.meta).to.deep.equal({ total: 4, limit: 1, offset: 1 });
    expect(page.data).to.have.length(1);
    const past = await get('offset=50');
    expect(past).to.deep.equal({ meta: { total: 4, limit: 500, offset: 50 }, data: [] });
    problemOf(await org.api.get(`/invoice-items?filter[jobId_not]=${b.jobId}`), 400);
  });

  it('allows a bulk page of 2500 and orders by every listed field', async () => {
    expectStatus(await org.api.get('/invoice-items?limit=2500'), 200);
    for (const f of ['createdAt', 'description', 'hasException', 'id', 'invoiceId', 'lineNumber', 'notes', 'updatedAt']) {
      expectStatus(await org.api.get(`/invoice-items?orderBy=${f}`), 200);
    }
    const byDesc = expectStatus(await org.api.get('/invoice-items?orderBy=description&direction=ASC'), 200).body.data;
    expect(byDesc.map((i) => i.description)).to.deep.equal(['Caps', 'Elbows', 'Lift rental', 'Pipe']);
  });

  itDirect('rejects a limit over 2500 and an unlisted orderBy', PRISM.invalidRequest('limit=2501, orderBy=jobId'), async () => {
    const p = problemOf(await org.api.get('/invoice-items?limit=2501'), 400);
    expect(p.errors[0].message).to.contain('2500');
    problemOf(await org.api.get('/invoice-items?orderBy=jobId'), 400);
  });

  it("never returns another organization's items", async () => {
    const intruder = await newOrg();
    expect(expectStatus(await intruder.api.get('/invoice-items'), 200).body).to.deep.equal({ meta: { total: 0, limit: 500, offset: 0 }, data: [] });
    const res = expectStatus(await intruder.api.get(`/invoice-items?filter[invoiceId]=${ids.first}`), 200).body;
    expect(res.meta.total).to.equal(0);
  });
});
