import { expect } from 'chai';
import { harness } from './support/harness';
import { newOrg, type TestOrg } from './support/client';
import { call, startInstance, type Instance } from './support/instance';
import { deleteClient, rotateApiKey, setOrganizationSetting } from '../src/admin/provision';
import { createOrder } from '../src/resources/orders/store';
import { createDb } from '../src/db/knex';

/**
 * Two service instances, each with its own pool, on one database (as behind a load balancer):
 * the concurrency cases hold across instances, not only within one process.
 */
describe('ops: two instances on one database', function () {
  this.timeout(120_000);
  let a: Instance;
  let b: Instance;
  let org: TestOrg;
  const on = (i: number) => (i % 2 === 0 ? a : b);

  before(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
    org = await newOrg();
  });
  after(async () => Promise.all([a?.close(), b?.close()]));

  it('PO counter: takers on both instances get distinct numbers while both reset the counter', async () => {
    await setOrganizationSetting(harness().db, org.id, 'po-counter', true);
    const job = (await call(a.baseUrl, 'POST', '/jobs', { token: org.apiKey, body: { code: 'TWO-PO', name: 'Two instances' } })).body;
    // The takers' own pools, one per side, patient for a connection: the instances' pools have 4
    // connections and a 1.5 s acquire timeout (an outage must turn into a 503 quickly), which 20
    // takers each, queued behind the resets' row lock on a loaded machine, can outwait.
    const takers = [createDb(harness().databaseUrl, 4, 120_000), createDb(harness().databaseUrl, 4, 120_000)];
    const take = async (i: number) => {
      const id = await createOrder(takers[i % 2], org.id, org.userId, { job_id: job.id });
      return (await harness().db('orders').where({ id }).first('purchase_order_number')).purchase_order_number as string;
    };
    const resets = Array.from({ length: 6 }, (_, i) =>
      call(on(i).baseUrl, 'POST', '/jobs/TWO-PO/nextPurchaseOrderNumber', { token: org.apiKey, body: { nextCounter: 1 } }),
    );
    const [numbers, answers] = await Promise.all([Promise.all(Array.from({ length: 40 }, (_, i) => take(i))), Promise.all(resets)]).finally(() =>
      Promise.all(takers.map((t) => t.destroy())),
    );
    for (const r of answers) expect(r.status, r.text).to.equal(200);
    expect(new Set(numbers).size).to.equal(40);
  });

  it('batch upserts of the same jobs on both instances at once: every request succeeds, each job exists once', async () => {
    const inputs = Array.from({ length: 200 }, (_, i) => ({ code: `TWO-B-${String(i).padStart(3, '0')}`, name: `Batch ${i}` }));
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => call(on(i).baseUrl, 'POST', '/jobs/batch', { token: org.apiKey, body: { inputs } })));
    for (const r of answers) {
      expect(r.status, r.text.slice(0, 500)).to.equal(200);
      expect(r.body).to.have.length(200);
    }
    const rows = await harness().db('jobs').where({ organization_id: org.id }).whereLike('code', 'TWO-B-%').count<{ n: string }[]>('* as n');
    expect(Number(rows[0].n)).to.equal(200);
  });

  it('duplicate creates on both instances at once: exactly one 201, the others 409', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(on(i).baseUrl, 'POST', '/jobs', { token: org.apiKey, body: { code: 'TWO-DUP', name: 'Duplicate' } })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([201, ...Array(9).fill(409)]);
  });

  it('a revoked token or rotated key stops working on the other instance at once', async () => {
    const other = await newOrg();
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: other.clientId, client_secret: other.clientSecret }).toString();
    const issued = await fetch(a.baseUrl + '/oauth2/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
    const token = ((await issued.json()) as { access_token: string }).access_token;
    expect((await call(b.baseUrl, 'GET', '/tax-codes', { token })).status).to.equal(200);
    expect((await call(b.baseUrl, 'GET', '/tax-codes', { token: other.apiKey })).status).to.equal(200);

    await deleteClient(harness().db, other.clientId);
    await rotateApiKey(harness().db, other.id);
    for (const instance of [b, a]) {
      expect((await call(instance.baseUrl, 'GET', '/tax-codes', { token })).status).to.equal(401);
      expect((await call(instance.baseUrl, 'POST', '/tax-codes', { token, body: { code: 'REVOKED', description: 'x', taxPercent: 0.01 } })).status).to.equal(
        401,
      );
      expect((await call(instance.baseUrl, 'GET', '/tax-codes', { token: other.apiKey })).status).to.equal(401);
    }
  });
});
