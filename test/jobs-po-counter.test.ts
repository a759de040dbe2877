import { expect } from 'chai';
import { setOrganizationSetting } from '../src/admin/provision';
import { takePurchaseOrderNumber } from '../src/resources/jobs/po-counter';
import { createOrder } from '../src/resources/orders/store';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';

describe('jobs: next purchase order number', () => {
  let org: TestOrg;

  const addOrder = (jobId: string, number: string, deleted = false) =>
    harness()
      .db('orders')
      .insert({ organization_id: org.id, job_id: jobId, purchase_order_number: number, deleted_at: deleted ? new Date() : null });
  const next = async (code: string) => expectStatus(await org.api.get(`/jobs/${code}/nextPurchaseOrderNumber`), 200).body.nextPurchaseOrderNumber as number;

  before(async () => {
    org = await newOrg();
  });

  it('GET answers the counter, skipping numbers used by live orders only', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'PO-1', name: 'Counter job' }), 201).body;
    expect(await next('PO-1')).to.equal(1);
    await addOrder(job.id, '1');
    await addOrder(job.id, '2');
    await addOrder(job.id, '3', true);
    await addOrder(job.id, 'PO-4');
    await addOrder(job.id, '04');
    expect(await next('PO-1')).to.equal(3);
  });

  it('POST is refused with 403 until enabled by a support request', async () => {
    expectStatus(await org.api.post('/jobs', { code: 'PO-2', name: 'Gated job' }), 201);
    const p = problemOf(await org.api.post('/jobs/PO-2/nextPurchaseOrderNumber', { nextCounter: 10 }), 403);
    expect(p.detail).to.match(/support request/);
    expect(await next('PO-2')).to.equal(1);
  });

  it('POST sets the counter, skipping numbers in use, and returns the job with hasPhaseCodes and the counter', async () => {
    await setOrganizationSetting(harness().db, org.id, 'po-counter', true);
    const job = expectStatus(await org.api.post('/jobs', { code: 'PO-3', name: 'Set counter' }), 201).body;
    for (const n of ['100', '101', '103']) await addOrder(job.id, n);
    const res = expectStatus(await org.api.post('/jobs/PO-3/nextPurchaseOrderNumber', { nextCounter: 100 }), 200).body;
    expect(res).to.include({ id: job.id, code: 'PO-3', hasPhaseCodes: false, nextPurchaseOrderCounter: 102 });
    expect(res.groups).to.deep.equal([]);
    expect(await next('PO-3')).to.equal(102);
    await harness().db('phases').insert({ organization_id: org.id, job_id: job.id, code: '01-100', description: 'General conditions' });
    const again = expectStatus(await org.api.post(`/jobs/${job.id}/nextPurchaseOrderNumber`, { nextCounter: 500 }), 200).body;
    expect(again).to.include({ hasPhaseCodes: true, nextPurchaseOrderCounter: 500 });
  });

  itDirect('rejects a counter below 1', PRISM.invalidRequest('nextCounter: 0'), async () => {
    problemOf(await org.api.post('/jobs/PO-3/nextPurchaseOrderNumber', { nextCounter: 0 }), 400);
  });

  it('50 concurrent takers get 50 distinct numbers, none already in use, also while the counter is being set', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'PO-4', name: 'Concurrency' }), 201).body;
    const used = ['2', '3', '5', '8', '13', '21', '34'];
    for (const n of used) await addOrder(job.id, n);
    // Through the one module that creates orders: a new order of the job takes the next number.
    const take = async () => {
      const id = await createOrder(harness().db, org.id, org.userId, { job_id: job.id });
      return (await harness().db('orders').where({ id }).first('purchase_order_number')).purchase_order_number as string;
    };
    const resets = Array.from({ length: 10 }, () => org.api.post('/jobs/PO-4/nextPurchaseOrderNumber', { nextCounter: 1 }));
    const taken = await Promise.all([...Array.from({ length: 50 }, take), ...resets.map(async (r) => expectStatus(await r, 200) && null)]);
    const numbers = taken.filter((n): n is string => n !== null);
    expect(numbers).to.have.length(50);
    expect(new Set(numbers).size).to.equal(50);
    for (const n of numbers) expect(used).to.not.include(n);
    const rows = await harness().db('orders').where({ organization_id: org.id, job_id: job.id }).select('purchase_order_number');
    expect(new Set(rows.map((r) => r.purchase_order_number)).size).to.equal(rows.length);
    expect(rows.map((r) => r.purchase_order_number)).to.not.include(String(await next('PO-4')));
  });

  it('an order created with its own number (or explicitly none) does not take one', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'PO-5', name: 'Own numbers' }), 201).body;
    const own = await createOrder(harness().db, org.id, org.userId, { job_id: job.id, purchase_order_number: 'J-PO5-A' });
    const none = await createOrder(harness().db, org.id, org.userId, { job_id: job.id, purchase_order_number: null });
    const numbers = await harness().db('orders').whereIn('id', [own, none]).orderBy('purchase_order_number').pluck('purchase_order_number');
    expect(numbers).to.have.members(['J-PO5-A', null]);
    expect(await next('PO-5')).to.equal(1);
    await harness().db.transaction((tx) => takePurchaseOrderNumber(tx, org.id, job.id));
    expect(await next('PO-5')).to.equal(2);
  });
});
