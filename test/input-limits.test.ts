import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { insertJob, insertVendor } from './support/purchasing-fixtures';
import { makeJob } from './support/release-fixtures';
import { itDirect, PRISM } from './support/proxy';

/**
 * Values at and past the limits of what the service can store: numbers beyond the double range,
 * products of bounded numbers, and text longer than an index entry holds. Each is a 400 naming the
 * field, with nothing written, never a 500 (a database error) or a stored value no read can send.
 */

const BASE = { distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

/** Deterministic text that compresses badly: `n` characters drawn from a range of code points. */
function scrambled(n: number, first: number, size: number, seed = 7): string {
  let s = seed >>> 0;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(String.fromCodePoint(first + (s % size)));
  }
  return out.join('');
}
/** 1000 CJK ideographs: 1000 characters (within a 1000-character maxLength), 3000 bytes of UTF-8. */
const WIDE_1000 = scrambled(1000, 0x4e00, 20000);

describe('input limits', () => {
  let org: TestOrg;
  let refs: { job: string; vendor: string };

  before(async () => {
    org = await newOrg();
    refs = { job: await insertJob(org.id), vendor: await insertVendor(org.id) };
  });

  const ordersNumbered = async (po: string) =>
    expectStatus(await org.api.get(`/orders?filter[purchaseOrderNumber]=${encodeURIComponent(po)}`), 200).body as unknown[];

  itDirect(
    'answers a JSON number beyond the double range (1e309) with a 400 naming the field, and writes nothing',
    PRISM.invalidRequest('a number JSON parsers read as Infinity'),
    async () => {
      const po = `PO-INF-${Date.now()}`;
      for (const [field, literal] of [
        ['discount', '1e309'],
        ['shippingCost', '-1e309'],
      ]) {
        const raw = JSON.stringify({ ...BASE, purchaseOrderNumber: po, jobId: refs.job, vendorId: refs.vendor }).replace(/}$/, `,"${field}":${literal}}`);
        const p = problemOf(await org.api.unchecked.post('/orders', undefined, { raw, contentType: 'application/json' }), 400);
        expect(p.errors.map((e: any) => e.field)).to.deep.equal([`body.${field}`]);
      }
      expect(await ordersNumbered(po)).to.deep.equal([]);

      const order = expectStatus(
        await org.api.post('/orders', { ...BASE, purchaseOrderNumber: po, items: [{ lineNumber: 1, quantity: 2, unitPrice: 5 }] }),
        201,
      ).body;
      const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
      const p = problemOf(await org.api.unchecked.patch(`/items/${item.id}`, undefined, { raw: '{"unitPrice":1e309}', contentType: 'application/json' }), 400);
      expect(p.errors[0].field).to.equal('body.unitPrice');
      const added = problemOf(
        await org.api.unchecked.post(`/orders/${order.id}/items`, undefined, { raw: '[{"lineNumber":2,"quantity":-1e309}]', contentType: 'application/json' }),
        400,
      );
      expect(added.errors[0].field).to.equal('body[0].quantity');
      const after = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
      expect(after.map((i) => [i.unitPrice, i.extPrice])).to.deep.equal([[5, 10]]);
    },
  );

  itDirect(
    'answers a page size or offset beyond the double range (1e400, Infinity) with a 400 naming the parameter, never an unbounded page',
    PRISM.invalidRequest('a limit above its maximum'),
    async () => {
      for (const [path, field] of [
        ['/orders?limit=1e400', 'query.limit'],
        ['/orders?limit=-1e400', 'query.limit'],
        ['/jobs?limit=Infinity', 'query.limit'],
        ['/jobs?offset=1e400', 'query.offset'],
        ['/items?limit=1e400', 'query.limit'],
        ['/items?offset=1e400', 'query.offset'],
        ['/invoice-items?limit=1e400', 'query.limit'],
        ['/releases?offset=1e400', 'query.offset'],
      ] as const) {
        const res = await org.api.get(path);
        expect(res.status, `${path}: ${res.text.slice(0, 300)}`).to.equal(400);
        expect(problemOf(res, 400).errors[0].field, path).to.equal(field);
      }
    },
  );

  itDirect(
    'bounds quantities (backorder included), prices, discounts and shipping costs at 10^12, so derived prices and totals stay finite numbers',
    PRISM.invalidRequest('a quantity above its maximum'),
    async () => {
      const po = `PO-BIG-${Date.now()}`;
      // Finite, but its product with a price is not (1e308 x 10 overflows a double).
      const p = problemOf(await org.api.post('/orders', { ...BASE, purchaseOrderNumber: po, items: [{ lineNumber: 1, quantity: 1e308, unitPrice: 10 }] }), 400);
      expect(p.errors.map((e: any) => [e.field, e.rule])).to.deep.equal([['body.items[0].quantity', 'maximum']]);
      problemOf(await org.api.post('/orders', { ...BASE, purchaseOrderNumber: po, discount: -1e13 }), 400);
      expect(await ordersNumbered(po)).to.deep.equal([]);

      // The largest values are taken, and every read sends them back as numbers.
      const order = expectStatus(
        await org.api.post('/orders', {
          ...BASE,
          purchaseOrderNumber: po,
          shippingCost: 1e12,
          items: [{ lineNumber: 1, quantity: 1e12, unitPrice: -1e12 }],
        }),
        201,
      ).body;
      expect(order.shippingCost).to.equal(1e12);
      const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
      expect(item.extPrice).to.equal(-1e24);
      const patched = problemOf(await org.api.patch(`/items/${item.id}`, { quantity: 1.5e12 }), 400);
      expect(patched.errors[0]).to.include({ field: 'body.quantity', rule: 'maximum' });
      // A backorder quantity enters no computation, but is bounded the same way.
      const backorder = problemOf(await org.api.patch(`/items/${item.id}`, { backorderQuantity: 1e300 }), 400);
      expect(backorder.errors[0]).to.include({ field: 'body.backorderQuantity', rule: 'maximum' });
      expect(expectStatus(await org.api.patch(`/items/${item.id}`, { backorderQuantity: 1e12 }), 200).body.backorderQuantity).to.equal(1e12);
    },
  );

  itDirect(
    'refuses text over the maxLength of indexed fields (PO number, UPC, vendor part number, tag title, BOM item description) with a 400',
    PRISM.invalidRequest('text over its maxLength'),
    async () => {
      const long = (n: number) => 'x'.repeat(n);
      const po = problemOf(await org.api.post('/orders', { ...BASE, purchaseOrderNumber: long(101) }), 400);
      expect(po.errors[0]).to.include({ field: 'body.purchaseOrderNumber', rule: 'maxLength' });
      const order = expectStatus(await org.api.post('/orders', { ...BASE, purchaseOrderNumber: long(100) }), 201).body;
      for (const field of ['universalProductCode', 'vendorPartNumber']) {
        const p = problemOf(await org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 1, [field]: long(201) }]), 400);
        expect(p.errors[0]).to.include({ field: `body[0].${field}`, rule: 'maxLength' });
      }
      const tag = problemOf(await org.api.post(`/order/${order.id}/tags`, [{ title: long(101) }]), 400);
      expect(tag.errors[0]).to.include({ field: 'body[0].title', rule: 'maxLength' });

      await makeJob(org, 'J-LIMITS');
      const bom = expectStatus(await org.api.post('/jobs/J-LIMITS/billOfMaterials'), 201).body.id;
      const b = problemOf(
        await org.api.post(`/billOfMaterials/${bom}/items`, { billOfMaterialsItems: [{ description: long(1001), estimatedQuantity: 1 }] }),
        400,
      );
      expect(b.errors[0].message).to.match(/^Position 0: .*description.*1000 characters/);
      expectStatus(await org.api.post(`/billOfMaterials/${bom}/items`, { billOfMaterialsItems: [{ description: long(1000), estimatedQuantity: 1 }] }), 201);
    },
  );

  it('answers text within its maxLength but too long in bytes for its index with a 400 naming the field, and writes nothing', async () => {
    const code = `CC-WIDE-${Date.now()}`;
    const p = problemOf(await org.api.post('/global-categories', { code, description: WIDE_1000 }), 400);
    expect(p.errors[0]).to.include({ field: 'body.description', rule: 'maxLength' });
    expect(p.errors[0].message).to.match(/too long to be indexed/);
    problemOf(await org.api.get(`/global-categories/${code}`), 404);
    // The same text in a field without an index is stored as given.
    const order = expectStatus(await org.api.post('/orders', { ...BASE, purchaseOrderNumber: `PO-WIDE-${Date.now()}`, notes: WIDE_1000 }), 201).body;
    expect(order.notes).to.equal(WIDE_1000);
  });

  it("reports such text in a batch by position, with the batch's other rejected elements, and writes nothing", async () => {
    const tooLong = 'description: text too long to be indexed (more than about 2,600 bytes in UTF-8); shorten it (rule maxLength)';
    const code = `PH-WIDE-${Date.now()}`;
    const phases = problemOf(
      await org.api.post('/global-phases/batch', {
        inputs: [{ code: `${code}-0`, description: 'ok' }, { code: `${code}-1`, description: WIDE_1000 }, { code: `${code}-2` }],
      }),
      400,
    );
    expect(phases.errors).to.deep.equal([{ message: `Position 1: ${tooLong}\nPosition 2: description is required` }]);
    problemOf(await org.api.get(`/global-phases/${code}-0`), 404);

    await makeJob(org, 'J-WIDE');
    const bom = expectStatus(await org.api.post('/jobs/J-WIDE/billOfMaterials'), 201).body.id;
    const created = problemOf(
      await org.api.post(`/billOfMaterials/${bom}/items`, {
        billOfMaterialsItems: [
          { description: 'ok', estimatedQuantity: 1 },
          { description: WIDE_1000, estimatedQuantity: 1 },
          { description: 'ok', estimatedQuantity: -1 },
        ],
      }),
      400,
    );
    expect(created.errors[0].message.split('\n')).to.deep.equal([
      `Position 1: ${tooLong}`,
      'Position 2: estimatedQuantity: must be greater than or equal to 0 (rule minimum)',
    ]);
    const items = expectStatus(
      await org.api.post(`/billOfMaterials/${bom}/items`, {
        billOfMaterialsItems: [
          { description: 'a', estimatedQuantity: 1 },
          { description: 'b', estimatedQuantity: 1 },
        ],
      }),
      201,
    ).body;
    const patched = problemOf(
      await org.api.patch('/billOfMaterialsItems', {
        inputs: [
          { billOfMaterialsItemId: items[0].id, input: { description: WIDE_1000 } },
          { billOfMaterialsItemId: items[1].id, input: { estimatedQuantity: 1.5 } },
        ],
      }),
      400,
    );
    expect(patched.errors[0].message.split('\n')).to.deep.equal([
      `Position 0: input.${tooLong}`,
      'Position 1: input.estimatedQuantity: must be a whole number (rule integer)',
    ]);
    const single = problemOf(await org.api.patch(`/billOfMaterialsItem/${items[0].id}`, { input: { description: WIDE_1000 } }), 400);
    expect(single.errors.map((e: any) => [e.field, e.rule])).to.deep.equal([['body.input.description', 'maxLength']]);
    expect(
      expectStatus(await org.api.get(`/billOfMaterials/${bom}/items`), 200)
        .body.map((i: { description: string }) => i.description)
        .sort(),
    ).to.deep.equal(['a', 'b']);
  });
});
