import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, createClient, FeedFollower, fullReadResync, memoryCursorStore, reconcile, type ChangeEntry } from '../client/src/index.mjs';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { headCursor, readAll } from './support/feed';
import { startChild } from './support/child';
import { eventually } from './support/webhook-receiver';
import { pruneChangeFeed } from '../src/feed/retention';

/** Applies vendor entries to a replica keyed by id (a deletion removes the object). */
function apply(replica: Map<string, unknown>, entry: { type: string; id: string; data: unknown }): void {
  if (entry.type.endsWith('.deleted')) replica.delete(entry.id);
  else replica.set(entry.id, entry.data);
}

async function liveVendors(org: TestOrg): Promise<Map<string, unknown>> {
  return new Map(expectStatus(await org.api.get('/vendors?limit=1000'), 200).body.map((v) => [v.id, v]));
}

/**
 * FeedFollower (client/src/feed-follower.mts): a connector in a child process killed with SIGKILL
 * mid-page and restarted handles every entry at least once and in order and ends equal to the
 * service; a cursor older than the retention resyncs by a full read and ends equal; start, wake
 * and stop.
 */
describe('client kit: FeedFollower', function () {
  this.timeout(90_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'follower-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('killed with SIGKILL mid-page and restarted: every entry handled at least once, in order, and the copy equals the service', async () => {
    const org = await newOrg();
    const codes = Array.from({ length: 36 }, (_, i) => `V-K${String(i).padStart(2, '0')}`);
    expectStatus(await org.api.post('/vendors/batch', { inputs: codes.map((code) => ({ code, name: code })) }), 200);
    expectStatus(await org.api.patch('/vendors/V-K01', { name: 'Renamed' }), 200);
    expectStatus(await org.api.delete('/vendors/V-K02'), 200);
    const expected = (await readAll(org.api, undefined, '&resource=vendor')).entries.map((e) => e.cursor);
    expect(expected).to.have.length(38);

    const cursorFile = join(dir, 'kill.cursor');
    const log = join(dir, 'kill.log');
    writeFileSync(log, '');
    const lines = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const args = [join(__dirname, 'support', 'follower-child.js'), harness().baseUrl, org.apiKey, cursorFile, log, '50'];
    const first = startChild(process.execPath, args);
    // Page size 10: the 15th entry is in the middle of the second page.
    await eventually('the first run to handle 15 entries', () => lines().length >= 15 || first.process.exitCode !== null, 30_000);
    first.process.kill('SIGKILL');
    await new Promise((resolve) => first.process.once('exit', resolve));
    expect(first.process.signalCode, first.output()).to.equal('SIGKILL');
    const beforeRestart = lines().length;
    expect(beforeRestart).to.be.below(expected.length);

    const second = startChild(process.execPath, [...args.slice(0, -1), '0']);
    await new Promise((resolve) => second.process.once('exit', resolve));
    expect(second.process.exitCode, second.output()).to.equal(0);

    const handled = lines().map((l) => JSON.parse(l) as { cursor: string; type: string; id: string; data: unknown });
    const index = handled.map((h) => expected.indexOf(h.cursor));
    expect(index).to.not.include(-1);
    // First handlings are the feed in order; the one step back is the restart repeating the page in flight.
    expect([...new Set(handled.map((h) => h.cursor))]).to.deep.equal(expected);
    const backSteps = index.filter((n, i) => i > 0 && n !== index[i - 1] + 1);
    expect(backSteps.length).to.be.at.most(1);
    for (let i = 1; i < index.length; i++) expect(index[i]).to.be.at.most(index[i - 1] + 1);

    const replica = new Map<string, unknown>();
    for (const h of handled) apply(replica, h);
    expect(replica).to.deep.equal(await liveVendors(org));
    const client = createClient({ baseUrl: harness().baseUrl, apiKey: org.apiKey });
    expect((await reconcile({ client, resource: 'vendor', local: replica.values() as Iterable<object> })).equal).to.equal(true);
  });

  it('given a cursor older than the retention, resyncs by a full read (onResync) from the head and ends equal', async () => {
    const org = await newOrg();
    const start = await headCursor(org.api);
    for (const code of ['A', 'B', 'C']) expectStatus(await org.api.post('/vendors', { code, name: code }), 201);
    const db = harness().db;
    // The organization's first three entries (its admin user's, A, B) are past the retention: `start` is gone.
    await db.raw(
      `UPDATE change_feed SET occurred_at = now() - interval '40 days' WHERE organization_id = ? AND position IN (SELECT position FROM change_feed WHERE organization_id = ? ORDER BY position LIMIT 3)`,
      [org.id, org.id],
    );
    expect(await pruneChangeFeed(db, 30)).to.be.at.least(2);
    const client = createClient({ baseUrl: harness().baseUrl, apiKey: org.apiKey });

    const unprepared = new FeedFollower({ client, cursorStore: memoryCursorStore(start), handle: () => undefined });
    const gone = await unprepared.catchUp().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(gone).to.be.instanceOf(ApiError);
    expect((gone as ApiError).status).to.equal(410);

    const replica = new Map<string, unknown>([['stale', { id: 'stale' }]]);
    let resyncs = 0;
    const store = memoryCursorStore(start);
    const follower = new FeedFollower({
      client,
      cursorStore: store,
      resource: 'vendor',
      handle: (entry) => apply(replica, entry),
      onResync: fullReadResync({
        lists: { vendor: '/vendors' },
        begin: () => {
          resyncs += 1;
          replica.clear();
        },
        apply: (_resource, vendor) => void replica.set(vendor.id, vendor),
      }),
    });
    await follower.catchUp();
    expect(resyncs).to.equal(1);
    expect(store.get()).to.not.equal(start);
    expect(replica).to.deep.equal(await liveVendors(org));

    expectStatus(await org.api.delete('/vendors/B'), 200);
    expectStatus(await org.api.post('/vendors', { code: 'D', name: 'D' }), 201);
    await follower.catchUp();
    expect(resyncs).to.equal(1);
    expect([...replica.values()].map((v) => (v as { code: string }).code).sort()).to.deep.equal(['A', 'C', 'D']);
    expect(replica).to.deep.equal(await liveVendors(org));

    // A follower without a cursor starts the same way: the head, a full read, then the feed.
    const fresh = new Map<string, unknown>();
    const empty = memoryCursorStore();
    await new FeedFollower({
      client,
      cursorStore: empty,
      resource: 'vendor',
      handle: (entry) => apply(fresh, entry),
      onResync: fullReadResync({ lists: { vendor: '/vendors' }, apply: (_resource, vendor) => void fresh.set(vendor.id, vendor) }),
    }).catchUp();
    expect(empty.get()).to.be.a('string');
    expect(fresh).to.deep.equal(await liveVendors(org));
  });

  it('start() follows until stop(); wake() reads at once instead of after the wait', async () => {
    const org = await newOrg();
    const client = createClient({ baseUrl: harness().baseUrl, apiKey: org.apiKey });
    const seen: ChangeEntry[] = [];
    const follower = new FeedFollower({
      client,
      cursorStore: memoryCursorStore(await headCursor(org.api)),
      types: ['vendor.created'],
      handle: (entry) => void seen.push(entry),
      // Long waits: only wake() can bring the entry in within the test's time.
      minIdleMs: 600_000,
      maxIdleMs: 600_000,
    });
    const running = follower.start();
    expectStatus(await org.api.post('/vendors', { code: 'V-WAKE', name: 'Wake' }), 201);
    follower.wake();
    await eventually('the woken follower to handle the entry', () => seen.length === 1, 20_000);
    expect(seen[0].data).to.deep.include({ code: 'V-WAKE' });
    await follower.stop();
    await running;
  });
});
