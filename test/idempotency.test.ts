import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';
import { rawCall } from './support/raw-http';

const ORDER = { purchaseOrderNumber: 'IDEM-1', distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

describe('Idempotency-Key on POST', () => {
  let org: TestOrg;
  let other: TestOrg;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
  });

  const countOrders = async (orgId: string, po: string) =>
    Number((await harness().db('orders').where({ organization_id: orgId, purchase_order_number: po }).count('* as n').first())!.n);

  it('replays the stored response for the same key and request, marked Idempotent-Replayed', async () => {
    const headers = { 'Idempotency-Key': 'replay-1' };
    const first = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-R' }, { headers }), 201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    const again = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-R' }, { headers }), 201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('etag')).to.equal(first.headers.get('etag'));
    expect(await countOrders(org.id, 'IDEM-R')).to.equal(1);
  });

  it('refuses the same key with another body (422) and accepts the quoted structured-field form as the same key', async () => {
    expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-A' }, { headers: { 'Idempotency-Key': 'k-422' } }), 201);
    const p = problemOf(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-B' }, { headers: { 'Idempotency-Key': 'k-422' } }), 422);
    expect(p.errors[0]).to.include({ field: 'header.Idempotency-Key', rule: 'same-request' });
    const quoted = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-A' }, { headers: { 'Idempotency-Key': '"k-422"' } }), 201);
    expect(quoted.headers.get('idempotent-replayed')).to.equal('true');
    expect(await countOrders(org.id, 'IDEM-B')).to.equal(0);
  });

  itDirect(
    'refuses two Idempotency-Key headers (400) instead of taking them as one key, and writes nothing',
    'sends two Idempotency-Key headers: Prism forwards them joined into one value ("a, b"), which is one key',
    async () => {
      const body = JSON.stringify({ ...ORDER, purchaseOrderNumber: 'IDEM-TWO' });
      const headers = ['Authorization', `Bearer ${org.apiKey}`, 'Content-Type', 'application/json'];
      const res = await rawCall('POST', '/orders', [...headers, 'Idempotency-Key', 'a', 'Idempotency-Key', 'b'], body);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.errors[0]).to.include({ field: 'header.Idempotency-Key', rule: 'single' });
      expect(await countOrders(org.id, 'IDEM-TWO')).to.equal(0);
      // One header holding a comma is one key, as before.
      expect((await rawCall('POST', '/orders', [...headers, 'Idempotency-Key', 'a, b'], body)).status).to.equal(201);
    },
  );

  it('creates exactly one order under 20 concurrent identical requests; the others replay or get 409', async () => {
    const body = { ...ORDER, purchaseOrderNumber: 'IDEM-CONC' };
    const results = await Promise.all(Array.from({ length: 20 }, () => org.api.post('/orders', body, { headers: { 'Idempotency-Key': 'concurrent-1' } })));
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(),
    ).to.equal(true);
    for (const r of results.filter((r) => r.status === 409)) expect(problemOf(r, 409).errors[0].rule).to.equal('in-progress');
    const created = results.filter((r) => r.status === 201);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).to.have.length(1);
    expect(new Set(created.map((r) => r.body.id)).size).to.equal(1);
    expect(await countOrders(org.id, 'IDEM-CONC')).to.equal(1);
    // After the first committed, a retry replays.
    const retry = expectStatus(await org.api.post('/orders', body, { headers: { 'Idempotency-Key': 'concurrent-1' } }), 201);
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
  });

  itDirect(
    'keeps keys per organization, does not store failures, and works on other POSTs (order items)',
    PRISM.invalidRequest('an order without its required contact fields, to make a request fail'),
    async () => {
      const headers = { 'Idempotency-Key': 'shared-key' };
      expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-O1' }, { headers }), 201);
      const theirs = expectStatus(await other.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-O2' }, { headers }), 201);
      expect(theirs.headers.get('idempotent-replayed')).to.equal(null);
      // A failed request stores nothing: fixed and retried with the same key, it runs.
      problemOf(await org.api.unchecked.post('/orders', { purchaseOrderNumber: 'IDEM-F' }, { headers: { 'Idempotency-Key': 'fail-then-fix' } }), 400);
      expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-F' }, { headers: { 'Idempotency-Key': 'fail-then-fix' } }), 201);
      const order = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-I' }), 201).body;
      const add = () => org.api.post(`/orders/${order.id}/items`, [{ lineNumber: 1, quantity: 1 }], { headers: { 'Idempotency-Key': 'items-1' } });
      expectStatus(await add(), 201);
      expect(expectStatus(await add(), 201).headers.get('idempotent-replayed')).to.equal('true');
      expect((await org.api.get(`/orders/${order.id}/items`)).body).to.have.length(1);
      // An invalid key is a 400 naming the header as every Idempotency-Key answer does.
      const tooLong = problemOf(await org.api.post('/orders', ORDER, { headers: { 'Idempotency-Key': 'x'.repeat(300) } }), 400);
      expect(tooLong.errors[0]).to.include({ field: 'header.Idempotency-Key', rule: 'maxLength' });
    },
  );

  it('forgets expired keys and prunes them', async () => {
    const headers = { 'Idempotency-Key': 'expiring' };
    expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-E' }, { headers }), 201);
    await harness()
      .db('idempotency_keys')
      .where({ organization_id: org.id, key: 'expiring' })
      .update({ expires_at: harness().db.raw("now() - interval '1 second'") });
    const again = expectStatus(await org.api.post('/orders', { ...ORDER, purchaseOrderNumber: 'IDEM-E' }, { headers }), 201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect(await countOrders(org.id, 'IDEM-E')).to.equal(2);
    const stored = await harness().db('idempotency_keys').where({ organization_id: org.id, key: 'expiring' }).first('expires_at');
    expect(new Date(stored.expires_at).getTime()).to.be.greaterThan(Date.now() + 23 * 3600 * 1000);
  });
});
