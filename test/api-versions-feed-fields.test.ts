import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { insertJob, insertVendor } from './support/purchasing-fixtures';
import { onlyDirect } from './support/proxy';
import { headCursor } from './support/feed';
import { runPendingCaptures } from '../src/resources/reconciliation/captures';
import { RECONCILED } from '../src/resources';

const OLD = '2026-06-01';
const NEW = '2026-12-15';
const at = (version: string) => ({ headers: { 'Api-Version': version } });
const BASE = { distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

/** GET /changes?fields= takes the field names of the version it is read at (src/versions/: changedFieldsUp, keepChangedOneOf). */
describe('API versions: GET /changes?fields= in the reader version', () => {
  let org: TestOrg;
  let orderId: string;
  let after: string;

  before(async function () {
    onlyDirect(this, 'reads the feed at the older API version, which Prism (the newest contract) cannot check');
    org = await newOrg();
    const job = await insertJob(org.id);
    const vendorId = await insertVendor(org.id);
    orderId = expectStatus(await org.api.post('/orders', { ...BASE, purchaseOrderNumber: 'PO-F-1', jobId: job, vendorId, type: 'STANDARD' }, at(NEW)), 201).body
      .id;
    after = await headCursor(org.api);
    // 1: type STANDARD -> MAJOR (isProjectPO false -> true at the older version).
    expectStatus(await org.api.patch(`/orders/${orderId}`, { type: 'MAJOR' }, at(NEW)), 200);
    // 2: type MAJOR -> HOLD_FOR_RELEASE (isProjectPO true -> false).
    expectStatus(await org.api.patch(`/orders/${orderId}`, { type: 'HOLD_FOR_RELEASE' }, at(NEW)), 200);
    // 3: type HOLD_FOR_RELEASE -> STANDARD: a change of `type` the older version's isProjectPO does not see.
    expectStatus(await org.api.patch(`/orders/${orderId}`, { type: 'STANDARD' }, at(NEW)), 200);
    // 4: notes only.
    expectStatus(await org.api.patch(`/orders/${orderId}`, { notes: 'notes only' }, at(NEW)), 200);
    // 5: the order's version number, changed in the database (a change order recorded by the
    // application) and entered into the feed by the capture (its task run here, not waited for).
    await harness().db('orders').where({ organization_id: org.id, id: orderId }).update({ version: 1 });
    await runPendingCaptures(RECONCILED, harness().db);
  });

  const page = async (version: string, fields: string) => {
    const res = expectStatus(await org.api.get(`/changes?after=${after}&resource=order&${fields}`, at(version)), 200);
    return res.body.data.filter((e: any) => e.id === orderId && e.type === 'order.updated');
  };

  it('understands a field only the older version has, computed from a newer one: isProjectPO', async () => {
    const older = await page(OLD, 'fields=isProjectPO');
    // Only the changes that changed isProjectPO as the older version reads it (not 3, not 4).
    expect(older.map((e: any) => e.data.type)).to.deep.equal(['MAJOR', 'HOLD_FOR_RELEASE']);
    for (const e of older) expect(e.changedFields).to.include('isProjectPO');
    expect(older[0].previous).to.include({ isProjectPO: false });
    // At the newest version the name is no field: no update passes.
    expect(await page(NEW, 'fields=isProjectPO')).to.deep.equal([]);
  });

  it('understands `version` (retired in favour of versionNumber), and names among others, comma-separated or repeated', async () => {
    const older = await page(OLD, 'fields=version');
    expect(older).to.have.length(1);
    expect(older[0].changedFields).to.include.members(['version', 'versionNumber']);
    expect(older[0].data).to.include({ version: 1, versionNumber: 1 });
    expect(await page(NEW, 'fields=version')).to.deep.equal([]);
    expect((await page(NEW, 'fields=versionNumber')).map((e: any) => e.data.versionNumber)).to.deep.equal([1]);
    const both = await page(OLD, 'fields=notes,version');
    expect(both.map((e: any) => e.changedFields.includes('notes') || e.changedFields.includes('version'))).to.deep.equal([true, true]);
    expect(await page(OLD, 'fields=notes&fields=version')).to.deep.equal(both);
    // A field both versions name alike is itself.
    expect(await page(OLD, 'fields=type')).to.have.length(3);
  });
});
