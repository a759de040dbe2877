import { expect } from 'chai';
import { harness } from './support/harness';
import { ApiResponse, expectStatus, newOrg, TestOrg } from './support/client';
import { headCursor, readAll } from './support/feed';
import { makeOrder } from './support/release-fixtures';
import { onlyDirect } from './support/proxy';
import { eventually, Receiver } from './support/webhook-receiver';
import { startBackgroundWorker, BackgroundWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

const ok = async (res: Promise<ApiResponse>, status = 200) => expectStatus(await res, status).body;

describe('two-way sync: what a write changed', function () {
  this.timeout(120_000);
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  it('a repeated PATCH of a sent, LINKED order leaves it LINKED: no change order, no version, same ETag and updatedAt', async () => {
    const { id } = await makeOrder(org, { state: 'ACTIVE' }, [
      { line_number: 1, description: 'EMT conduit', quantity: 10, unit_price: 2, units_of_measure: 'EA' },
    ]);
    await ok(org.api.patch(`/orders/${id}`, { notes: 'edited' }));
    await ok(org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED' }));
    const linked = expectStatus(await org.api.get(`/orders/${id}`), 200);
    const countChangeOrders = async () => Number((await harness().db('change_orders').where({ order_id: id }).count('* as n'))[0].n);
    const changeOrders = await countChangeOrders();
    const cursor = await headCursor(org.api);
    for (let i = 0; i < 2; i++) {
      const again = expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'edited' }), 200);
      expect(again.body).to.deep.equal(linked.body);
      expect(again.headers.get('etag')).to.equal(linked.headers.get('etag'));
    }
    expect((await ok(org.api.get(`/orders/${id}`))).integrationState).to.equal('LINKED');
    expect(await countChangeOrders()).to.equal(changeOrders);
    expect((await readAll(org.api, cursor)).entries).to.deep.equal([]);
    // A real edit still makes its change order and puts the order back in the connector's pull.
    await ok(org.api.patch(`/orders/${id}`, { notes: 'edited again' }));
    const { entries } = await readAll(org.api, cursor);
    expect(entries.map((e) => e.type)).to.deep.equal(['change_order.created', 'order.updated']);
    expect(entries[1].changedFields).to.include.members(['notes', 'integrationState']);
    expect(entries[1].previous).to.include({ notes: 'edited', integrationState: 'LINKED' });
  });

  it('changedFields and previous: a field set to null, and a nested value (a job’s groups) given whole', async () => {
    const [g1, g2] = [
      await ok(org.api.post('/groups', { name: 'North', code: 'WC-N' }), 201),
      await ok(org.api.post('/groups', { name: 'South', code: 'WC-S' }), 201),
    ];
    const tax = await ok(org.api.post('/tax-codes', { code: 'WC-TX', description: 'Tax', taxPercent: 0.05 }), 201);
    const job = await ok(org.api.post('/jobs', { code: 'WC-1', name: 'Riverside', defaultTaxCodeId: tax.id, groupIds: [g1.id] }), 201);
    let cursor = await headCursor(org.api);
    await ok(org.api.patch('/jobs/WC-1', { defaultTaxCodeId: null }));
    let [e] = (await readAll(org.api, cursor)).entries;
    expect(e.type).to.equal('job.updated');
    expect(e.changedFields).to.deep.equal(['defaultTaxCodeId']);
    expect(e.previous).to.deep.equal({ defaultTaxCodeId: tax.id });
    expect(e.data.defaultTaxCodeId).to.equal(null);

    cursor = await headCursor(org.api);
    const updated = await ok(org.api.patch('/jobs/WC-1', { groupIds: [g1.id, g2.id] }));
    [e] = (await readAll(org.api, cursor)).entries;
    expect(e.changedFields).to.deep.equal(['groups']);
    expect(e.previous).to.deep.equal({ groups: job.groups });
    expect(e.data.groups).to.deep.equal(updated.groups);
    expect(e.changedFields).to.not.include('updatedAt');

    // The same groups in another order: the job reads the same, nothing is recorded.
    cursor = await headCursor(org.api);
    expect(await ok(org.api.patch('/jobs/WC-1', { groupIds: [g2.id, g1.id] }))).to.deep.equal(updated);
    expect((await readAll(org.api, cursor)).entries).to.deep.equal([]);
  });

  it('a 1000-element jobs batch of which one element changes records exactly one entry, and leaves the other 999 updatedAt as they were', async () => {
    const inputs = Array.from({ length: 1000 }, (_, n) => ({ code: `WB-${String(n).padStart(4, '0')}`, name: `Batch job ${n}`, state: 'OPEN' as const }));
    const first = await ok(org.api.post('/jobs/batch', { inputs }));
    const cursor = await headCursor(org.api);
    inputs[500] = { ...inputs[500], name: 'Renamed' };
    const second = await ok(org.api.post('/jobs/batch', { inputs }));
    const { entries } = await readAll(org.api, cursor);
    expect(entries.map((e) => [e.type, e.data.code, e.changedFields])).to.deep.equal([['job.updated', 'WB-0500', ['name']]]);
    expect(second.filter((j: { updatedAt: string }, i: number) => j.updatedAt !== first[i].updatedAt).map((j: { code: string }) => j.code)).to.deep.equal([
      'WB-0500',
    ]);
  });

  it('GET /changes?fields= leaves out the updates that changed none of the fields; creations and deletions pass; nextCursor moves past', async () => {
    const cursor = await headCursor(org.api);
    await ok(org.api.post('/vendors', { code: 'WF-1', name: 'Ferguson' }), 201);
    await ok(org.api.patch('/vendors/WF-1', { name: 'Ferguson Inc.' }));
    await ok(org.api.post('/units-of-measure', { code: 'WF-U', description: 'Foot' }), 201);
    await ok(org.api.patch('/units-of-measure/WF-U', { description: 'Feet' }));
    await ok(org.api.delete('/vendors/WF-1'));
    const { entries, cursor: next } = await readAll(org.api, cursor, '&fields=name,code');
    expect(entries.map((e) => e.type)).to.deep.equal(['vendor.created', 'vendor.updated', 'unit_of_measure.created', 'vendor.deleted']);
    expect((await readAll(org.api, cursor, '&fields=description')).entries.map((e) => e.type)).to.deep.equal([
      'vendor.created',
      'unit_of_measure.created',
      'unit_of_measure.updated',
      'vendor.deleted',
    ]);
    // Only skipped updates after the cursor: the page is empty and nextCursor is past them.
    await ok(org.api.patch('/units-of-measure/WF-U', { description: 'Linear feet' }));
    const page = await ok(org.api.get(`/changes?after=${next}&fields=name`));
    expect(page.data).to.deep.equal([]);
    expect(page.nextCursor).to.equal(await headCursor(org.api));
  });

  describe('a webhook endpoint’s fields', () => {
    let receiver: Receiver;
    let worker: BackgroundWorker | undefined;
    before(async () => {
      receiver = await new Receiver().start();
    });
    after(async () => {
      await worker?.stop();
      await receiver.stop();
    });

    it('delivers creations, deletions and the updates that changed one of its fields, nothing else', async function () {
      onlyDirect(this, 'runs a delivery worker and a webhook receiver in the test process, on the database of the in-process service');
      const path = '/fields';
      const endpoint = await ok(
        org.api.post('/webhook-endpoints', {
          url: receiver.url(path),
          types: ['tax_code.created', 'tax_code.updated', 'tax_code.deleted'],
          fields: ['taxPercent'],
        }),
        201,
      );
      expect(endpoint.fields).to.deep.equal(['taxPercent']);
      receiver.secrets.set(path, [endpoint.secret]);
      await ok(org.api.post('/tax-codes', { code: 'WH-TX', description: 'Tax', taxPercent: 0.05 }), 201);
      await ok(org.api.patch('/tax-codes/WH-TX', { description: 'Sales tax' }));
      await ok(org.api.patch('/tax-codes/WH-TX', { taxPercent: 0.06 }));
      await ok(org.api.patch('/tax-codes/WH-TX', { taxPercent: 0.06 }));
      await ok(org.api.delete('/tax-codes/WH-TX'));
      worker = await startBackgroundWorker({
        db: harness().db,
        connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
        settings: { ...webhookSettings(loadConfig()), allowedHosts: ['127.0.0.1'], timeoutMs: 2000, retryBaseMs: 20, retryMaxMs: 200, concurrency: 2 },
        pollInterval: 100,
      });
      await eventually('three deliveries', () => receiver.accepted(path).length >= 3);
      const got = receiver.accepted(path).map((r) => [r.body.type, r.body.data.changedFields ?? null, r.body.data.previous ?? null]);
      expect(got).to.deep.equal([
        ['tax_code.created', null, null],
        ['tax_code.updated', ['taxPercent'], { taxPercent: 0.05 }],
        ['tax_code.deleted', null, null],
      ]);
      expect(receiver.accepted(path).every((r) => r.verifiedBy.length === 1)).to.equal(true);
      // The deletion is the newest entry and was delivered: nothing else is on its way.
      const head = await harness().db('feed_heads').where({ organization_id: org.id }).first('position');
      await eventually('delivered through the head', async () => {
        const ep = await harness().db('webhook_endpoints').where({ id: endpoint.id }).first('delivered_position');
        return Number(ep.delivered_position) === Number(head.position);
      });
      expect(receiver.accepted(path).length).to.equal(3);
    });
  });
});
