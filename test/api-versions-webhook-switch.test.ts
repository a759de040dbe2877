import { expect } from 'chai';
import { localDelivery } from './support/local-delivery';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { insertJob, insertVendor } from './support/purchasing-fixtures';
import { onlyDirect } from './support/proxy';
import { headCursor, type Change } from './support/feed';
import { eventually, Receiver } from './support/webhook-receiver';
import { deliverEndpoint } from '../src/background/deliver';
import { decodeCursor } from '../src/feed/cursor';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

const OLD = '2026-06-01';
const NEW = '2026-12-15';
const at = (version: string) => ({ headers: { 'Api-Version': version } });
const BASE = { distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

/** Parallel writers, the writes they make (together) before the switch's cursor is taken, and each one's writes after the switch. */
const WRITERS = 4;
const BEFORE_CURSOR = 12;
const AFTER_SWITCH = 4;

/**
 * Issue 38: an endpoint's `apiVersion` changed at a cursor (`apiVersionAfter`) while writes go on
 * in parallel: the cursor is taken and the PATCH made between writes of other requests in flight,
 * so entries are committed before the cursor, between it and the PATCH, and after the PATCH.
 * Delivery runs once the stream is over (this process, a real sender and receiver on 127.0.0.1).
 */
describe('API versions: a webhook endpoint switched at a cursor during a stream of writes', function () {
  this.timeout(120_000);
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

  const deps = () => localDelivery('versions-switch-test');

  /** The feed's entries after `after` at a version, every page. */
  const entriesAt = async (version: string, after: string, types: string): Promise<Change[]> => {
    const out: Change[] = [];
    for (let cursor = after; ;) {
      const page = expectStatus(await org.api.get(`/changes?after=${cursor}&types=${types}&limit=100`, at(version)), 200).body;
      out.push(...(page.data as Change[]));
      cursor = page.nextCursor;
      if (!page.hasMore) return out;
    }
  };

  it('delivers every entry once: the older shape up to the cursor, the newer after it, each signed', async () => {
    const types = 'order.created,order.updated';
    const start = await headCursor(org.api);
    const endpoint = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/stream'), types: types.split(',') }, at(OLD)), 201).body;
    receiver.secrets.set('/stream', [endpoint.secret]);

    // The stream: each writer creates an order and changes it (`type` too, which the older shape
    // shows as `isProjectPO`) until the switch is made, then AFTER_SWITCH more times.
    let written = 0;
    let switched = false;
    let enoughWritten!: () => void;
    const cursorDue = new Promise<void>((resolve) => (enoughWritten = resolve));
    const wrote = () => {
      if (++written >= BEFORE_CURSOR) enoughWritten();
    };
    const writer = async (w: number) => {
      const order = { ...BASE, purchaseOrderNumber: `PO-SWITCH-${w}`, jobId: refs.job, vendorId: refs.vendor, type: 'STANDARD' as const };
      const id = expectStatus(await org.api.post('/orders', order, at(NEW)), 201).body.id as string;
      wrote();
      for (let i = 0, after = 0; after < AFTER_SWITCH; i++) {
        const afterSwitch = switched;
        expectStatus(await org.api.patch(`/orders/${id}`, { notes: `writer ${w}, write ${i}`, type: i % 2 ? 'STANDARD' : 'MAJOR' }, at(NEW)), 200);
        wrote();
        if (afterSwitch) after++;
      }
      return id;
    };
    const switcher = async () => {
      await cursorDue;
      const cursor = await headCursor(org.api);
      const patched = expectStatus(await org.api.patch(`/webhook-endpoints/${endpoint.id}`, { apiVersion: NEW, apiVersionAfter: cursor }), 200).body;
      expect(patched).to.include({ apiVersion: NEW, apiVersionAfter: cursor, previousApiVersion: OLD });
      switched = true;
      return cursor;
    };
    const [cursor, ...orderIds] = await Promise.all([switcher(), ...Array.from({ length: WRITERS }, (_, w) => writer(w))]);

    // What the endpoint is to be sent: the stream's entries, as GET /changes renders them at each version.
    const ours = (entries: Change[]) => entries.filter((e) => orderIds.includes(e.id));
    const older = ours(await entriesAt(OLD, start, types));
    const newer = ours(await entriesAt(NEW, start, types));
    expect(older.map((e) => e.cursor)).to.deep.equal(newer.map((e) => e.cursor));
    const switchedAfter = decodeCursor(org.id, cursor)!;
    const positionOf = (e: Change) => decodeCursor(org.id, e.cursor)!;
    // The cursor is inside the stream: entries on both sides of it.
    expect(older.filter((e) => positionOf(e) <= switchedAfter)).to.have.length.above(WRITERS);
    expect(older.filter((e) => positionOf(e) > switchedAfter)).to.have.length.at.least(WRITERS * AFTER_SWITCH);

    await eventually(
      `${older.length} deliveries`,
      async () => {
        await deliverEndpoint(deps(), endpoint.id);
        return receiver.accepted('/stream').length >= older.length;
      },
      60_000,
    );
    // One more run: nothing is left to send, and nothing is sent again.
    await deliverEndpoint(deps(), endpoint.id);
    const received = receiver.accepted('/stream');
    expect(received.map((r) => r.body.data.cursor)).to.deep.equal(older.map((e) => e.cursor));
    expect(new Set(received.map((r) => r.id)).size).to.equal(received.length);
    expect(receiver.requests.filter((r) => r.path === '/stream')).to.have.length(received.length);
    received.forEach((r, i) => {
      expect(r.verifiedBy, r.id).to.deep.equal([0]);
      const old = positionOf(r.body.data) <= switchedAfter;
      // The payload is the entry as GET /changes returns it at the version in force for it.
      expect(r.body.data, r.id).to.deep.equal(old ? older[i] : newer[i]);
      expect(r.body.data.data, r.id).to.satisfy((d: any) => (old ? 'isProjectPO' in d && 'version' in d : !('isProjectPO' in d) && !('version' in d)));
    });
  });

  it('records an entry acknowledged while the endpoint was switched at its cursor: sent once, the next one in the newer shape', async () => {
    const path = '/in-flight';
    const types = ['order.created', 'order.updated'];
    const endpoint = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url(path), types }, at(OLD)), 201).body;
    receiver.secrets.set(path, [endpoint.secret]);
    // The first request to this path is answered only once the switch has committed.
    let release!: () => void;
    const switchCommitted = new Promise<void>((resolve) => (release = resolve));
    let arrived!: (r: { body: { data: { cursor: string } } }) => void;
    const firstArrived = new Promise<{ body: { data: { cursor: string } } }>((resolve) => (arrived = resolve));
    const replies = receiver.reply;
    receiver.reply = (r, attempt) => {
      if (r.path !== path) return replies(r, attempt);
      if (receiver.requests.filter((x) => x.path === path).length === 1) {
        arrived(r);
        return { status: 204, after: switchCommitted };
      }
      return { status: 204 };
    };
    try {
      const order = { ...BASE, purchaseOrderNumber: 'PO-IN-FLIGHT', jobId: refs.job, vendorId: refs.vendor, type: 'MAJOR' as const };
      const id = expectStatus(await org.api.post('/orders', order, at(NEW)), 201).body.id as string;
      const run = deliverEndpoint(deps(), endpoint.id);
      const first = await firstArrived;
      // Switched while the entry is in flight, at that entry's cursor: it stays in the older shape.
      expectStatus(await org.api.patch(`/webhook-endpoints/${endpoint.id}`, { apiVersion: NEW, apiVersionAfter: first.body.data.cursor }), 200);
      release();
      await run;
      expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'after the switch' }, at(NEW)), 200);
      await eventually(
        'the entry after the switch',
        async () => {
          await deliverEndpoint(deps(), endpoint.id);
          return receiver.accepted(path).length >= 2;
        },
        30_000,
      );
      await deliverEndpoint(deps(), endpoint.id);
      const received = receiver.requests.filter((r) => r.path === path);
      // Without recording the acknowledged entry, the run after the switch sent it again.
      expect(received.map((r) => r.body.data.type)).to.deep.equal(['order.created', 'order.updated']);
      expect(received.every((r) => r.verifiedBy.length === 1)).to.equal(true);
      expect(received[0].body.data.data).to.include.keys('isProjectPO', 'version');
      expect(received[1].body.data.data).to.not.include.keys('isProjectPO', 'version');
    } finally {
      receiver.reply = replies;
    }
  });
});
