import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import type { components } from '../generated/api-types';
import { MISSING_ID } from './support/tenancy';
import { insertUser, makeOrder, sleep } from './support/purchasing-fixtures';
import { itDirect, PRISM } from './support/proxy';

type NotificationPayload = components['schemas']['NotificationPayload'];

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('notifications', () => {
  let org: TestOrg;
  let other: TestOrg;
  let recipient: string;
  let order: string;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    recipient = await insertUser(org.id);
    order = await makeOrder(org);
  });

  const issue = (payload: NotificationPayload = { lastSyncTime: '2026-11-20T22:10:00.000Z' }) => ({
    recipientId: recipient,
    type: 'integration_issue' as const,
    payload,
  });

  it('creates an integration issue (with and without an order) and a resolution', async () => {
    const withOrder = expectStatus(await org.api.post('/notifications', issue({ lastSyncTime: '2026-11-20T22:10:00.000Z', order: { id: order } })), 201).body;
    expect(withOrder).to.deep.include({
      type: 'integration_issue',
      payload: { lastSyncTime: '2026-11-20T22:10:00.000Z', order: { id: order } },
      recipientId: recipient,
      isRead: false,
      readAt: null,
    });
    expect(withOrder.createdAt).to.match(TS);
    const general = expectStatus(await org.api.post('/notifications', issue()), 201).body;
    expect(general.payload).to.deep.equal({ lastSyncTime: '2026-11-20T22:10:00.000Z' });
    const resolved = expectStatus(
      await org.api.post('/notifications', { recipientId: recipient, type: 'integration_issue_resolved', payload: { resolvedAt: '2026-11-21T08:02:00.000Z' } }),
      201,
    ).body;
    expect(resolved).to.deep.include({ type: 'integration_issue_resolved', payload: { resolvedAt: '2026-11-21T08:02:00.000Z' } });
  });

  itDirect('validates the payload per type', PRISM.invalidRequest('payloads that do not fit their type, an unlisted type, no recipientId'), async () => {
    let p = problemOf(await org.api.unchecked.post('/notifications', issue({})), 400);
    expect(p.errors[0].field).to.equal('body.payload.lastSyncTime');
    p = problemOf(
      await org.api.unchecked.post('/notifications', {
        recipientId: recipient,
        type: 'integration_issue_resolved',
        payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' },
      }),
      400,
    );
    expect(p.errors[0].field).to.equal('body.payload.resolvedAt');
    p = problemOf(await org.api.unchecked.post('/notifications', issue({ lastSyncTime: 'yesterday' })), 400);
    expect(p.errors[0].field).to.equal('body.payload.lastSyncTime');
    problemOf(await org.api.unchecked.post('/notifications', { ...issue(), payload: { lastSyncTime: '2026-11-20T22:10:00.000Z', order: {} } }), 400);
    problemOf(await org.api.unchecked.post('/notifications', { ...issue(), type: 'sync_failed' }), 400);
    problemOf(await org.api.unchecked.post('/notifications', { type: 'integration_issue', payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' } }), 400);
  });

  it("404s a recipient or an order that is not the organization's", async () => {
    let p = problemOf(await org.api.post('/notifications', { ...issue(), recipientId: MISSING_ID }), 404);
    expect(p.errors[0].message).to.match(/recipientId/);
    p = problemOf(await org.api.post('/notifications', { ...issue(), recipientId: other.userId }), 404);
    expect(p.errors[0].message).to.match(/recipientId/);
    p = problemOf(await org.api.post('/notifications', issue({ lastSyncTime: '2026-11-20T22:10:00.000Z', order: { id: MISSING_ID } })), 404);
    expect(p.errors[0].message).to.match(/order\.id/);
    const foreignOrder = await makeOrder(other);
    problemOf(await org.api.post('/notifications', issue({ lastSyncTime: '2026-11-20T22:10:00.000Z', order: { id: foreignOrder } })), 404);
  });

  it("lists with the allowed orderBy and filters, only the organization's", async () => {
    const o = await newOrg();
    const a = expectStatus(
      await o.api.post('/notifications', { recipientId: o.userId, type: 'integration_issue', payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' } }),
      201,
    ).body;
    const b = expectStatus(
      await o.api.post('/notifications', { recipientId: o.userId, type: 'integration_issue_resolved', payload: { resolvedAt: '2026-11-21T08:00:00.000Z' } }),
      201,
    ).body;
    expectStatus(await o.api.patch('/notifications', { id_in: [b.id], data: { isRead: true } }), 200);
    const ids = async (q: string) => (expectStatus(await o.api.get(`/notifications?${q}`), 200).body as any[]).map((n) => n.id);
    expect(await ids('')).to.deep.equal([a.id, b.id]);
    expect(await ids('direction=DESC')).to.deep.equal([b.id, a.id]);
    expect(await ids('filter[type]=integration_issue')).to.deep.equal([a.id]);
    expect(await ids('filter[isRead]=true')).to.deep.equal([b.id]);
    expect(await ids('filter[isRead]=false')).to.deep.equal([a.id]);
    expect(await ids('filter[readAt_gt]=2000-01-01T00:00:00Z')).to.deep.equal([b.id]);
    expect(await ids('orderBy=isRead&direction=DESC')).to.deep.equal([b.id, a.id]);
    for (const f of ['id', 'type', 'readAt', 'updatedAt']) expectStatus(await o.api.get(`/notifications?orderBy=${f}`), 200);
    problemOf(await o.api.get('/notifications?filter[recipientId]=x'), 400);
    expect(await ids('limit=1&offset=1')).to.deep.equal([b.id]);
    expect((expectStatus(await other.api.get('/notifications'), 200).body as any[]).map((n) => n.id)).to.not.include.members([a.id]);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=payload'), async () => {
    problemOf(await org.api.get('/notifications?orderBy=payload'), 400);
  });

  it('updates isRead and readAt consistently and returns the updated ids', async () => {
    const a = expectStatus(await org.api.post('/notifications', issue()), 201).body;
    const b = expectStatus(await org.api.post('/notifications', issue()), 201).body;
    const read = expectStatus(await org.api.patch('/notifications', { id_in: [a.id, b.id], data: { isRead: true } }), 200).body;
    expect(read).to.deep.equal([a.id, b.id]);
    const get = async (id: string) => (expectStatus(await org.api.get(`/notifications?filter[id]=${id}`), 200).body as any[])[0];
    const aRead = await get(a.id);
    expect(aRead.isRead).to.equal(true);
    expect(aRead.readAt).to.match(TS);
    await sleep(5);
    // Marking it read again keeps the first read time.
    expectStatus(await org.api.patch('/notifications', { id_in: [a.id], data: { isRead: true } }), 200);
    expect((await get(a.id)).readAt).to.equal(aRead.readAt);

    expectStatus(await org.api.patch('/notifications', { id_in: [a.id], data: { isRead: false } }), 200);
    expect(await get(a.id)).to.include({ isRead: false, readAt: null });

    expectStatus(await org.api.patch('/notifications', { id_in: [a.id], data: { readAt: '2026-11-21T09:00:00.000Z' } }), 200);
    expect(await get(a.id)).to.include({ isRead: true, readAt: '2026-11-21T09:00:00.000Z' });
    expectStatus(await org.api.patch('/notifications', { id_in: [a.id], data: { readAt: null } }), 200);
    expect(await get(a.id)).to.include({ isRead: false, readAt: null });
    expectStatus(await org.api.patch('/notifications', { id_in: [a.id], data: { isRead: true, readAt: '2026-11-21T10:00:00.000Z' } }), 200);
    expect(await get(a.id)).to.include({ isRead: true, readAt: '2026-11-21T10:00:00.000Z' });

    const p = problemOf(await org.api.patch('/notifications', { id_in: [a.id], data: { isRead: false, readAt: '2026-11-21T10:00:00.000Z' } }), 400);
    expect(p.errors[0].field).to.equal('body.data.readAt');
  });

  it('changes type and payload only when they still fit, and skips unknown or foreign ids', async () => {
    const a = expectStatus(await org.api.post('/notifications', issue()), 201).body;
    let p = problemOf(await org.api.patch('/notifications', { id_in: [a.id], data: { type: 'integration_issue_resolved' } }), 400);
    expect(p.errors[0].field).to.equal('body.data.payload.resolvedAt');
    const res = expectStatus(
      await org.api.patch('/notifications', {
        id_in: [a.id, MISSING_ID, 'nope'],
        data: { type: 'integration_issue_resolved', payload: { resolvedAt: '2026-11-21T08:02:00.000Z' } },
      }),
      200,
    ).body;
    expect(res).to.deep.equal([a.id]);
    const stored = (expectStatus(await org.api.get(`/notifications?filter[id]=${a.id}`), 200).body as any[])[0];
    expect(stored).to.deep.include({ type: 'integration_issue_resolved', payload: { resolvedAt: '2026-11-21T08:02:00.000Z' } });
    p = problemOf(
      await org.api.patch('/notifications', { id_in: [a.id], data: { payload: { resolvedAt: '2026-11-21T08:02:00.000Z', order: { id: MISSING_ID } } } }),
      404,
    );
    expect(p.errors[0].message).to.match(/order\.id/);
    expect(expectStatus(await other.api.patch('/notifications', { id_in: [a.id], data: { isRead: true } }), 200).body).to.deep.equal([]);
    expect((expectStatus(await org.api.get(`/notifications?filter[id]=${a.id}`), 200).body as any[])[0].isRead).to.equal(false);
  });

  itDirect('rejects an empty, mistyped or untargeted change', PRISM.invalidRequest('empty data, isRead: "yes", no id_in'), async () => {
    problemOf(await org.api.patch('/notifications', { id_in: [MISSING_ID], data: {} }), 400);
    problemOf(await org.api.unchecked.patch('/notifications', { id_in: [MISSING_ID], data: { isRead: 'yes' } }), 400);
    problemOf(await org.api.unchecked.patch('/notifications', { data: { isRead: true } }), 400);
  });
});
