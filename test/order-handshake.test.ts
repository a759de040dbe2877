import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { headCursor, readAll } from './support/feed';

const NEW_ORDER = {
  purchaseOrderNumber: 'HS-1',
  distributorContactEmail: 'dana@ferguson.example',
  distributorContactCompany: 'Ferguson',
  state: 'FINALIZING' as const,
};

describe('order handshake: versions, ETag, If-Match, versionNumber', () => {
  let org: TestOrg;
  let other: TestOrg;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
  });

  it('runs the integration loop without losing an update: create, pull, LINKED, edit, OUT_OF_SYNC, stale LINKED refused, re-link', async () => {
    const created = expectStatus(await org.api.post('/orders', { ...NEW_ORDER, items: [{ lineNumber: 1, quantity: 10, unitPrice: 2 }] }), 201);
    const id = created.body.id;
    expect(created.body).to.include({ integrationState: 'NOT_LINKED', versionNumber: 0, state: 'FINALIZING' });
    expect(created.headers.get('etag')).to.match(/^"[0-9a-f]{64}"$/);

    // The integrator pulls the order (list and single read carry the version) ...
    const pulled = expectStatus(await org.api.get(`/orders/${id}`), 200);
    const listed = expectStatus(await org.api.get('/orders?filter[integrationState_in]=NOT_LINKED'), 200);
    expect(listed.body.find((o: any) => o.id === id)!.versionNumber).to.equal(0);
    const etag0 = pulled.headers.get('etag')!;
    expect(etag0).to.equal(created.headers.get('etag'));

    // ... and links version 0.
    const linked = expectStatus(
      await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }, { headers: { 'If-Match': etag0 } }),
      200,
    );
    expect(linked.body).to.include({ integrationState: 'LINKED', versionNumber: 0 });
    expect(linked.body.integrationLastSync).to.be.a('string');

    // A user edits the order: version 1, OUT_OF_SYNC in the same request.
    const edited = expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'Deliver before 7 am.' }), 200);
    expect(edited.body).to.include({ integrationState: 'OUT_OF_SYNC', versionNumber: 1, notes: 'Deliver before 7 am.' });
    expect(edited.headers.get('etag')).to.not.equal(etag0);

    // A late LINKED for version 0 is refused, naming the current version; the order stays OUT_OF_SYNC.
    const stale = problemOf(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }), 409);
    expect(stale.errors[0]).to.include({ field: 'body.versionNumber', rule: 'current-version' });
    expect(stale.detail).to.contain('version 1');
    // The same with the old ETag: 412.
    const precondition = problemOf(
      await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED' }, { headers: { 'If-Match': etag0 } }),
      412,
    );
    expect(precondition.errors[0].field).to.equal('header.If-Match');
    expect(expectStatus(await org.api.get(`/orders/${id}`), 200).body.integrationState).to.equal('OUT_OF_SYNC');

    // Re-link the current version.
    const relinked = expectStatus(
      await org.api.post(
        `/orders/${id}/integrationState`,
        { integrationState: 'LINKED', versionNumber: 1 },
        { headers: { 'If-Match': edited.headers.get('etag')! } },
      ),
      200,
    );
    expect(relinked.body).to.include({ integrationState: 'LINKED', versionNumber: 1 });
    // The report itself is no new version (its integration fields are stored: the ETag follows them).
    const after = expectStatus(await org.api.get(`/orders/${id}`), 200);
    expect(after.body).to.include({ versionNumber: 1 });
    expect(after.headers.get('etag')).to.equal(relinked.headers.get('etag'));
  });

  // The guide's pull (step 1 of the handshake): what needs syncing.
  const pulled = async () =>
    (expectStatus(await org.api.get('/orders?filter[integrationState_in]=NOT_LINKED,OUT_OF_SYNC,ERROR&limit=1000'), 200).body as any[]).map((o) => o.id);

  it('turns a LINKING order edited meanwhile OUT_OF_SYNC: the stale LINKED is refused and the order is pulled again', async () => {
    const id = expectStatus(await org.api.post('/orders', NEW_ORDER), 201).body.id;
    const linking = expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKING' }), 200);
    expect(linking.body).to.include({ integrationState: 'LINKING', versionNumber: 0 });
    expect(await pulled()).not.to.include(id);
    // A user edits the order while the connector writes version 0.
    const edited = expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'Deliver before 7 am.' }), 200);
    expect(edited.body).to.include({ integrationState: 'OUT_OF_SYNC', versionNumber: 1 });
    const stale = problemOf(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }), 409);
    expect(stale.errors[0]).to.include({ field: 'body.versionNumber', rule: 'current-version' });
    expect(stale.detail).to.contain('stays OUT_OF_SYNC');
    expect((await org.api.get(`/orders/${id}`)).body).to.include({ integrationState: 'OUT_OF_SYNC', versionNumber: 1 });
    expect(await pulled()).to.include(id);
  });

  it('commits OUT_OF_SYNC (with its feed entry) when a stale LINKED is refused for an order reported LINKING after a change', async () => {
    const id = expectStatus(await org.api.post('/orders', NEW_ORDER), 201).body.id;
    // The connector pulls version 0; the order changes (version 1); then the connector reports LINKING.
    expect(await pulled()).to.include(id);
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'changed during the pull' }), 200);
    const cursor = await headCursor(org.api);
    expect(expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKING' }), 200).body).to.include({
      integrationState: 'LINKING',
      versionNumber: 1,
    });
    const stale = problemOf(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }), 409);
    expect(stale.errors[0]).to.include({ field: 'body.versionNumber', rule: 'current-version' });
    expect(stale.detail).to.contain('version 1').and.contain('OUT_OF_SYNC');
    const now = expectStatus(await org.api.get(`/orders/${id}`), 200).body;
    expect(now).to.include({ integrationState: 'OUT_OF_SYNC', versionNumber: 1 });
    expect(await pulled()).to.include(id);
    // The same refused report again changes nothing more.
    problemOf(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }), 409);
    const { entries } = await readAll(org.api, cursor, `&resource=order`);
    expect(entries.filter((e) => e.id === id).map((e) => [e.type, e.data.integrationState])).to.deep.equal([
      ['order.integration_state_changed', 'LINKING'],
      ['order.integration_state_changed', 'OUT_OF_SYNC'],
    ]);
    expect(entries[entries.length - 1].data).to.deep.equal(now);
  });

  it('takes If-Match "*" alone, a list holding the current tag, and refuses "*" in a list (400: not valid If-Match)', async () => {
    const created = expectStatus(await org.api.post('/orders', NEW_ORDER), 201);
    const id = created.body.id;
    const etag = created.headers.get('etag')!;
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'star' }, { headers: { 'If-Match': '*' } }), 200);
    const current = (await org.api.get(`/orders/${id}`)).headers.get('etag')!;
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'listed' }, { headers: { 'If-Match': `${etag}, ${current}` } }), 200);
    const p = problemOf(await org.api.patch(`/orders/${id}`, { notes: 'mixed' }, { headers: { 'If-Match': '*, "x"' } }), 400);
    expect(p.errors[0]).to.include({ field: 'header.If-Match', rule: 'format' });
    // The contract's own check (an empty value) names the header the same way.
    const empty = problemOf(await org.api.patch(`/orders/${id}`, { notes: 'empty' }, { headers: { 'If-Match': '' } }), 400);
    expect(empty.errors[0]).to.include({ field: 'header.If-Match', rule: 'minLength' });
    expect(empty.errors[0].message).to.match(/^header\.If-Match: /);
    expect(expectStatus(await org.api.get(`/orders/${id}`), 200).body.notes).to.equal('listed');
  });

  it('refuses a PATCH with a stale If-Match (412) and writes nothing', async () => {
    const created = expectStatus(await org.api.post('/orders', NEW_ORDER), 201);
    const id = created.body.id;
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'first' }), 200);
    problemOf(await org.api.patch(`/orders/${id}`, { notes: 'second' }, { headers: { 'If-Match': created.headers.get('etag')! } }), 412);
    const now = expectStatus(await org.api.get(`/orders/${id}`), 200);
    expect(now.body).to.include({ notes: 'first', versionNumber: 1 });
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'second' }, { headers: { 'If-Match': now.headers.get('etag')! } }), 200);
  });

  it('gives the order one version number: its latest completed change order, 0 until the first, and links by it', async () => {
    const draft = { ...NEW_ORDER, purchaseOrderNumber: 'HS-V', state: 'DRAFT' as const };
    const id = expectStatus(await org.api.post('/orders', draft), 201).body.id;
    // Edits of a draft are no versions (no change order) ...
    expect(expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'draft edit' }), 200).body).to.include({ versionNumber: 0 });
    expect(expectStatus(await org.api.patch(`/orders/${id}`, { state: 'FINALIZING' }), 200).body).to.include({ versionNumber: 0 });
    expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }), 200);
    // ... a change to the sent order is version 1, its only change order's number, and LINKED names it.
    const edited = expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'edited' }), 200).body;
    expect(edited).to.include({ versionNumber: 1, integrationState: 'OUT_OF_SYNC' });
    const cos = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${id}`), 200).body;
    expect(cos.map((c: any) => c.versionNumber)).to.deep.equal([1]);
    const linked = expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 1 }), 200);
    expect(linked.body).to.include({ integrationState: 'LINKED', versionNumber: 1 });
    // A draft change order is not a completed version yet.
    expect(expectStatus(await org.api.patch(`/orders/${id}?draft=true`, { notes: 'proposed' }), 200).body).to.include({ versionNumber: 1 });
  });

  it('reports change orders by version: a wrong versionNumber is a 409', async () => {
    const id = expectStatus(await org.api.post('/orders', NEW_ORDER), 201).body.id;
    expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'v1' }), 200);
    const [co] = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${id}`), 200).body;
    expect(co.versionNumber).to.equal(1);
    problemOf(await org.api.post(`/changeOrders/${co.id}/integrationState`, { integrationState: 'LINKED', versionNumber: 2 }), 409);
    expectStatus(await org.api.post(`/changeOrders/${co.id}/integrationState`, { integrationState: 'LINKED', versionNumber: 1 }), 200);
    expect(expectStatus(await org.api.get(`/changeOrders/${co.id}`), 200).body.integrationState).to.equal('LINKED');
  });

  it('takes invoice integration reports; ERROR needs a message; other organizations get 404', async () => {
    const [inv] = await harness().db('invoices').insert({ organization_id: org.id, created_by_id: org.userId }).returning('id');
    const bad = problemOf(await org.api.post(`/invoices/${inv.id}/integrationState`, { integrationState: 'ERROR' }), 400);
    expect(bad.errors[0].field).to.equal('body.integrationMessage');
    const ok = expectStatus(
      await org.api.post(`/invoices/${inv.id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'Vendor not mapped' }),
      200,
    );
    expect(ok.body).to.include({ integrationState: 'ERROR', integrationMessage: 'Vendor not mapped' });
    expect(expectStatus(await org.api.get('/invoices?filter[integrationState_in]=ERROR'), 200).body.map((i: any) => i.id)).to.include(inv.id);
    await expectForeignLikeMissing(other, 'POST', `/invoices/${inv.id}/integrationState`, `/invoices/${MISSING_ID}/integrationState`, {
      integrationState: 'LINKED',
    });
  });
});
