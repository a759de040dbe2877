import { expect } from 'chai';
import { harness } from './support/harness';
import { localDelivery } from './support/local-delivery';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { insertJob, insertVendor } from './support/purchasing-fixtures';
import { onlyDirect } from './support/proxy';
import { eventually, Receiver } from './support/webhook-receiver';
import { deliverEndpoint } from '../src/background/deliver';
import { runPendingCaptures } from '../src/resources/reconciliation/captures';
import { RECONCILED } from '../src/resources';
import { headCursor } from './support/feed';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

const OLD = '2026-06-01';
const NEW = '2026-12-15';
const at = (version: string) => ({ headers: { 'Api-Version': version } });
const BASE = { distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

/**
 * A webhook endpoint's `fields` in the names of its version (x-changed-fields on the endpoint's
 * schemas, src/versions/registry.ts): given at an older version, stored as the newest names them,
 * shown to each reader in its version's names. Every answer is checked against its version's
 * contract by the service in test mode.
 */
describe('API versions: a webhook endpoint’s fields in its version’s names', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let refs: { job: string; vendor: string };
  let receiver: Receiver;

  before(async function () {
    onlyDirect(this, 'runs requests at the older API version and delivers to a receiver in this process');
    org = await newOrg();
    refs = { job: await insertJob(org.id), vendor: await insertVendor(org.id) };
    receiver = await new Receiver().start();
  });
  after(async () => receiver?.stop());

  const deps = () => localDelivery('versions-fields-test');
  /** Delivers until the receiver has `n` on `path`, then once more: all the endpoint is sent of what was written. */
  const deliver = async (endpointId: string, path: string, n: number) => {
    await eventually(`${n} deliveries on ${path}`, async () => {
      await deliverEndpoint(deps(), endpointId);
      return receiver.accepted(path).length >= n;
    });
    await deliverEndpoint(deps(), endpointId);
    return receiver.accepted(path);
  };
  const newOrder = async (purchaseOrderNumber: string) =>
    expectStatus(await org.api.post('/orders', { ...BASE, purchaseOrderNumber, jobId: refs.job, vendorId: refs.vendor, type: 'STANDARD' }, at(NEW)), 201).body
      .id as string;
  const fieldsAt = async (id: string, version: string) => {
    const read = expectStatus(await org.api.get(`/webhook-endpoints/${id}`, at(version)), 200).body.fields;
    const listed = expectStatus(await org.api.get('/webhook-endpoints', at(version)), 200).body.find((e) => e.id === id)!.fields;
    expect(listed, `listed at ${version}`).to.deep.equal(read);
    return read;
  };

  it('is sent the changes of a field only the older version has, given by that name, and not an unrelated change', async () => {
    const created = expectStatus(
      await org.api.post('/webhook-endpoints', { url: receiver.url('/projectpo'), types: ['order.updated'], fields: ['isProjectPO'] }, at(OLD)),
      201,
    ).body;
    receiver.secrets.set('/projectpo', [created.secret]);
    // isProjectPO follows `type`: the endpoint is shown so at the older version, and as `type` at the newer.
    expect(created.fields).to.have.members(['isProjectPO', 'type']);
    expect(await fieldsAt(created.id, OLD)).to.have.members(['isProjectPO', 'type']);
    expect(await fieldsAt(created.id, NEW)).to.deep.equal(['type']);

    const id = await newOrder('PO-WF-1');
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'unrelated' }, at(NEW)), 200);
    expectStatus(await org.api.patch(`/orders/${id}`, { type: 'MAJOR' }, at(NEW)), 200);
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'unrelated again' }, at(NEW)), 200);
    const received = await deliver(created.id, '/projectpo', 1);
    expect(received).to.have.length(1);
    expect(received[0].verifiedBy).to.deep.equal([0]);
    expect(received[0].body.data.data).to.include({ id, isProjectPO: true, type: 'MAJOR' });
    expect(received[0].body.data.changedFields).to.include('isProjectPO');
  });

  it('takes the older names at the endpoint’s older version from a request at the newer one, and matches the same changes after a switch of apiVersion', async () => {
    const created = expectStatus(
      await org.api.post('/webhook-endpoints', { url: receiver.url('/version'), types: ['order.updated'], apiVersion: OLD }, at(NEW)),
      201,
    ).body;
    receiver.secrets.set('/version', [created.secret]);
    // A PATCH at the newer version of an endpoint at the older one: `version` is the older version's name of versionNumber.
    const patched = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { fields: ['version'] }, at(NEW)), 200).body;
    expect(patched.fields).to.deep.equal(['versionNumber']);
    expect(await fieldsAt(created.id, OLD)).to.have.members(['version', 'versionNumber']);

    const id = await newOrder('PO-WF-2');
    /** A change order recorded by the application moves the order's version number; the capture enters it (its task run here). */
    const changeOrder = async (version: number) => {
      await harness().db('orders').where({ organization_id: org.id, id }).update({ version });
      await runPendingCaptures(RECONCILED, harness().db);
    };
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'unrelated', type: 'MAJOR' }, at(NEW)), 200);
    await changeOrder(1);
    const [first] = await deliver(created.id, '/version', 1);
    expect(receiver.accepted('/version')).to.have.length(1);
    expect(first.body.data.data).to.include({ id, version: 1, versionNumber: 1 });
    expect(first.body.data.changedFields).to.include('version');

    // Switched to the newer version: the stored names match the same changes, shown in its names.
    const switched = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { apiVersion: NEW }, at(OLD)), 200).body;
    expect(switched.fields).to.have.members(['version', 'versionNumber']);
    expect(await fieldsAt(created.id, NEW)).to.deep.equal(['versionNumber']);
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'unrelated again' }, at(NEW)), 200);
    await changeOrder(2);
    const received = await deliver(created.id, '/version', 2);
    expect(received).to.have.length(2);
    expect(received[1].verifiedBy).to.deep.equal([0]);
    expect(received[1].body.data.data).to.include({ id, versionNumber: 2 }).and.not.have.property('version');
    expect(received[1].body.data.changedFields).to.include('versionNumber');
  });

  it('renders its own feed entries (GET /changes, webhook payloads) at the reader’s version, like its read there', async () => {
    const after = await headCursor(org.api);
    // An endpoint at the older version that is sent the endpoints' own changes.
    const watcher = expectStatus(
      await org.api.post('/webhook-endpoints', { url: receiver.url('/endpoints'), types: ['webhook_endpoint.created', 'webhook_endpoint.updated'] }, at(OLD)),
      201,
    ).body;
    receiver.secrets.set('/endpoints', [watcher.secret]);
    const watched = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/watched'), fields: ['isProjectPO'] }, at(OLD)), 201).body;
    expectStatus(await org.api.patch(`/webhook-endpoints/${watched.id}`, { fields: ['notes'] }, at(NEW)), 200);
    const entriesAt = async (version: string) =>
      (expectStatus(await org.api.get(`/changes?after=${after}&resource=webhook_endpoint`, at(version)), 200).body.data as any[]).filter(
        (e) => e.id === watched.id,
      );

    const [createdNew, updatedNew] = await entriesAt(NEW);
    expect(createdNew.data.fields).to.deep.equal(['type']);
    expect(updatedNew.data.fields).to.deep.equal(['notes']);
    expect(updatedNew.changedFields).to.include('fields');
    expect(updatedNew.previous.fields).to.deep.equal(['type']);

    const [createdOld, updatedOld] = await entriesAt(OLD);
    expect(createdOld.data.fields).to.have.members(['isProjectPO', 'type']);
    expect(updatedOld.data.fields).to.deep.equal(['notes']);
    expect(updatedOld.changedFields).to.deep.equal(updatedNew.changedFields);
    expect(updatedOld.previous.fields).to.have.members(['isProjectPO', 'type']);
    // The entry is the endpoint as its read at each version returns it (nothing changed since).
    for (const [version, entry] of [
      [OLD, updatedOld],
      [NEW, updatedNew],
    ] as const)
      expect(entry.data, version).to.deep.equal(expectStatus(await org.api.get(`/webhook-endpoints/${watched.id}`, at(version)), 200).body);

    // The watcher (at the older version) is sent the same entries, signed.
    const received = (await deliver(watcher.id, '/endpoints', 2)).filter((r) => r.body.data.id === watched.id);
    expect(received.map((r) => r.verifiedBy)).to.deep.equal([[0], [0]]);
    expect(received.map((r) => r.body.data)).to.deep.equal([createdOld, updatedOld]);
  });

  it('shows what a request at the older version names in the newer names, and leaves names of neither version as given', async () => {
    const created = expectStatus(
      await org.api.post('/webhook-endpoints', { url: receiver.url('/mixed'), fields: ['version', 'notes', 'isVisibileToField'] }, at(OLD)),
      201,
    ).body;
    expect(await fieldsAt(created.id, NEW)).to.have.members(['versionNumber', 'notes', 'isVisibileToField']);
    expect(await fieldsAt(created.id, OLD)).to.have.members(['version', 'versionNumber', 'notes', 'isVisibileToField']);
    // At the newer version an older name is a name like any other: kept as given.
    const newer = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { apiVersion: NEW }, at(NEW)), 200).body;
    expect(newer.apiVersion).to.equal(NEW);
    expect(expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { fields: ['isProjectPO'] }, at(NEW)), 200).body.fields).to.deep.equal([
      'isProjectPO',
    ]);
    // The 400s of the older contract: an empty name, a property it does not have.
    expect(problemOf(await org.api.unchecked.post('/webhook-endpoints', { url: receiver.url('/x'), fields: [''] }, at(OLD)), 400).errors[0].field).to.equal(
      'body.fields[0]',
    );
    expect(
      problemOf(await org.api.unchecked.post('/webhook-endpoints', { url: receiver.url('/x'), fields: ['version'], secret: 'whsec_mine' }, at(OLD)), 400)
        .errors[0].field,
    ).to.equal('body.secret');
  });
});
