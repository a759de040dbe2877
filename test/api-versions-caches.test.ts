import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { insertJob, insertVendor } from './support/purchasing-fixtures';
import { onlyDirect } from './support/proxy';

const OLD = '2026-06-01';
const NEW = '2026-12-15';
const at = (version: string, headers: Record<string, string> = {}) => ({ headers: { 'Api-Version': version, ...headers } });
const BASE = { distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

/** The names a Vary header lists, lowercased. */
const varyOf = (headers: Headers) => (headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());

/** One object, one representation per API version: one strong ETag each, and caches told to key on the version. */
describe('API versions: entity tags and caches', () => {
  let org: TestOrg;
  let orderId: string;

  before(async function () {
    onlyDirect(this, 'reads and writes at the older API version, which Prism (the newest contract) cannot check');
    org = await newOrg();
    orderId = expectStatus(
      await org.api.post('/orders', { ...BASE, purchaseOrderNumber: 'PO-E-1', jobId: await insertJob(org.id), vendorId: await insertVendor(org.id) }, at(NEW)),
      201,
    ).body.id;
  });

  const tagAt = async (version: string) => {
    const res = expectStatus(await org.api.get(`/orders/${orderId}`, at(version)), 200);
    return res.headers.get('etag')!;
  };

  it('gives the same object a tag per version, the older derived from the newest', async () => {
    const newest = await tagAt(NEW);
    const older = await tagAt(OLD);
    expect(newest).to.match(/^"[0-9a-f]{64}"$/);
    expect(older).to.equal(newest.replace(/"$/, `@${OLD}"`));
    // The credential's pin gives the same as the header.
    expect(expectStatus(await org.api.get(`/orders/${orderId}`), 200).headers.get('etag')).to.equal(newest);
  });

  it('answers 304 only to a tag of the version asked at', async () => {
    const newest = await tagAt(NEW);
    const older = await tagAt(OLD);
    expect((await org.api.unchecked.get(`/orders/${orderId}`, at(OLD, { 'If-None-Match': older }))).status).to.equal(304);
    expect((await org.api.unchecked.get(`/orders/${orderId}`, at(NEW, { 'If-None-Match': newest }))).status).to.equal(304);
    const crossed = await org.api.unchecked.get(`/orders/${orderId}`, at(OLD, { 'If-None-Match': newest }));
    expect(crossed.status).to.equal(200);
    expect(crossed.body).to.include.keys('version', 'isProjectPO');
    expect((await org.api.unchecked.get(`/orders/${orderId}`, at(NEW, { 'If-None-Match': older }))).status).to.equal(200);
  });

  it('writes with If-Match only on the tag of the version written at; the reply carries that version tag', async () => {
    const newest = await tagAt(NEW);
    const older = await tagAt(OLD);
    const refused = problemOf(await org.api.unchecked.patch(`/orders/${orderId}`, { notes: 'crossed' }, at(OLD, { 'If-Match': newest })), 412);
    expect(refused.errors[0].message).to.contain(`its current ETag is ${older}`);
    problemOf(await org.api.unchecked.patch(`/orders/${orderId}`, { notes: 'crossed' }, at(NEW, { 'If-Match': older })), 412);
    const written = await org.api.unchecked.patch(`/orders/${orderId}`, { notes: 'at the older version' }, at(OLD, { 'If-Match': older }));
    expect(written.status).to.equal(200);
    expect(written.headers.get('etag')).to.equal(await tagAt(OLD));
    expect(written.headers.get('etag')).to.not.equal(older);
  });

  it('says Vary: Api-Version on every answer, beside the other headers answers vary on', async () => {
    const read = await org.api.get(`/orders/${orderId}`, at(OLD));
    expect(varyOf(read.headers)).to.include('api-version');
    // Compressed (a body of more than 1 KiB): Vary names both.
    const contract = await fetch(harness().baseUrl + '/openapi.json', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(contract.headers.get('content-encoding')).to.equal('gzip');
    expect(varyOf(contract.headers)).to.include.members(['api-version', 'accept-encoding']);
    const refused = await org.api.unchecked.get(`/orders/${orderId}`, at('2020-01-01'));
    expect(refused.status).to.equal(400);
    expect(varyOf(refused.headers)).to.include('api-version');
  });
});
