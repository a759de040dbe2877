import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { harness } from './support/harness';

/**
 * A write that gives a reference the object already holds is not refused when the referenced
 * object was deleted since: a client writing back what it read (a sync loop, a form) is refused only
 * for a reference it changes.
 */
describe('references written back unchanged', () => {
  let org: TestOrg;
  let tax: { id: string; code: string };
  let vendor: { id: string };

  before(async () => {
    org = await newOrg();
    tax = expectStatus(await org.api.post('/tax-codes', { code: 'TX-GONE', description: 'Retired rate', taxPercent: 0.05 }), 201).body;
    vendor = expectStatus(await org.api.post('/vendors', { code: 'V-GONE', name: 'Closed Supply' }), 201).body;
  });

  it('jobs (single and batch, and an inline default location) and locations keep a deleted tax code they hold', async () => {
    const job = expectStatus(
      await org.api.post('/jobs', {
        code: 'WB-J1',
        name: 'Write-back job',
        defaultTaxCodeId: tax.id,
        defaultLocation: { name: 'WB site', defaultTaxCodeId: tax.id },
      }),
      201,
    ).body;
    const location = expectStatus(await org.api.post('/locations', { name: 'WB yard', type: 'Office', defaultTaxCodeId: tax.id }), 201).body;
    const bare = expectStatus(await org.api.post('/jobs', { code: 'WB-J2', name: 'No tax code' }), 201).body;
    expectStatus(await org.api.delete(`/tax-codes/${tax.id}`), 200);

    const read = expectStatus(await org.api.get(`/jobs/${job.id}`), 200).body;
    expect(read.defaultTaxCodeId).to.equal(tax.id);
    const patched = expectStatus(await org.api.patch(`/jobs/${job.id}`, { name: 'Renamed', defaultTaxCodeId: read.defaultTaxCodeId }), 200).body;
    expect(patched).to.include({ name: 'Renamed', defaultTaxCodeId: tax.id });
    expectStatus(await org.api.patch(`/jobs/${job.id}`, { defaultLocation: { name: 'WB site, gate 2', defaultTaxCodeId: tax.id } }), 200);
    expectStatus(
      await org.api.post('/jobs/batch', {
        inputs: [{ code: 'WB-J1', name: 'Batch', defaultTaxCodeId: tax.id, defaultLocation: { name: 'WB site', defaultTaxCodeId: tax.id } }],
      }),
      200,
    );
    expectStatus(await org.api.patch(`/locations/${location.id}`, { name: 'WB yard 2', defaultTaxCodeId: tax.id }), 200);

    // A new reference to the deleted tax code is refused as before, naming the field.
    const single = problemOf(await org.api.patch(`/jobs/${bare.id}`, { defaultTaxCodeId: tax.id }), 404);
    expect(single.errors[0].message).to.match(/^body\.defaultTaxCodeId: no tax code/);
    problemOf(await org.api.post('/locations', { name: 'New yard', type: 'Office', defaultTaxCodeId: tax.id }), 404);
    const batch = problemOf(await org.api.post('/jobs/batch', { inputs: [{ code: 'WB-J2', name: 'Batch', defaultTaxCodeId: tax.id }] }), 400);
    expect(batch.errors[0].message).to.match(/Position 0: defaultTaxCodeId: no tax code/);
  });

  it('orders keep a deleted vendor and tax code they hold', async () => {
    const base = { distributorContactEmail: 'dana@closed.example', distributorContactCompany: 'Closed Supply' };
    const taxCode = expectStatus(await org.api.post('/tax-codes', { code: 'TX-GONE-2', description: 'Retired', taxPercent: 0.06 }), 201).body;
    const order = expectStatus(await org.api.post('/orders', { ...base, purchaseOrderNumber: 'WB-1', vendorId: vendor.id, taxCodeId: taxCode.id }), 201).body;
    expectStatus(await org.api.delete(`/vendors/${vendor.id}`), 200);
    expectStatus(await org.api.delete(`/tax-codes/${taxCode.id}`), 200);
    const read = expectStatus(await org.api.get(`/orders/${order.id}`), 200).body;
    expect(read.taxCode!.id).to.equal(taxCode.id);
    const patched = expectStatus(
      await org.api.patch(`/orders/${order.id}`, { notes: 'written back', vendorId: read.vendorId, taxCodeId: read.taxCode!.id }),
      200,
    ).body;
    expect(patched).to.include({ notes: 'written back', vendorId: vendor.id });
    expect(patched.taxCode!.id).to.equal(taxCode.id);
    // Giving them to another order is refused.
    const other = expectStatus(await org.api.post('/orders', { ...base, purchaseOrderNumber: 'WB-2' }), 201).body;
    expect(problemOf(await org.api.patch(`/orders/${other.id}`, { vendorId: vendor.id }), 404).errors[0].message).to.match(/body\.vendorId/);
    problemOf(await org.api.post('/orders', { ...base, purchaseOrderNumber: 'WB-3', taxCodeId: taxCode.id }), 404);
  });

  it('items keep a deleted tax code they hold when its code is given back', async () => {
    expectStatus(await org.api.post('/tax-codes', { code: 'TX-ITEM', description: 'Retired line rate', taxPercent: 0.1 }), 201);
    const order = expectStatus(
      await org.api.post('/orders', {
        distributorContactEmail: 'dana@closed.example',
        distributorContactCompany: 'Closed Supply',
        purchaseOrderNumber: 'WB-ITEMS',
        items: [
          { lineNumber: 1, quantity: 2, unitPrice: 10, taxCode: 'TX-ITEM' },
          { lineNumber: 2, quantity: 1, unitPrice: 5 },
        ],
      }),
      201,
    ).body;
    const [held, other] = expectStatus(await org.api.get(`/orders/${order.id}/items?orderBy=lineNumber`), 200).body;
    const taxCodeId = expectStatus(await org.api.get('/tax-codes/TX-ITEM'), 200).body.id;
    expectStatus(await org.api.delete('/tax-codes/TX-ITEM'), 200);
    const patched = expectStatus(await org.api.patch(`/items/${held.id}`, { notes: 'written back', taxCode: 'TX-ITEM' }), 200).body;
    expect(patched.notes).to.equal('written back');
    expect(patched.extPriceIncludingTax).to.equal(held.extPriceIncludingTax);
    expect((await harness().db('items').where({ id: held.id }).first('tax_code_id')).tax_code_id).to.equal(taxCodeId);
    // The line that does not hold it may not take it.
    expect(problemOf(await org.api.patch(`/items/${other.id}`, { taxCode: 'TX-ITEM' }), 404).errors[0].message).to.match(/taxCode/);
    // Once a live tax code has that code again, the code names it.
    const revived = expectStatus(await org.api.post('/tax-codes', { code: 'TX-ITEM', description: 'Current line rate', taxPercent: 0.2 }), 201).body;
    expectStatus(await org.api.patch(`/items/${held.id}`, { taxCode: 'TX-ITEM' }), 200);
    expect((await harness().db('items').where({ id: held.id }).first('tax_code_id')).tax_code_id).to.equal(revived.id);
  });
});
