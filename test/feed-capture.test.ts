import { expect } from 'chai';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness } from './support/harness';
import { Client, expectStatus, newOrg } from './support/client';
import { Change, headCursor, readAll } from './support/feed';
import { onlyDirect } from './support/proxy';
import { eventually, Receiver, restOtherEndpoints } from './support/webhook-receiver';
import { insertAttachment, insertCode, insertTaxCode, makeOrder } from './support/purchasing-fixtures';
import { startCompiledServer } from './support/instance';
import { startBackgroundWorker, type BackgroundWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';
import { CAPTURED_TABLES } from '../migrations/20261206000000_feed_captures';
import { OWNERS } from '../migrations/20261206040000_feed_capture_owners';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/*
 * Changes made in the database, not through the API (issue #42): the triggers of migration
 * 20261206000000 queue them, the worker's feed_capture task appends their entries. Every wait is
 * a bounded poll for the entries; the digests are computed here from the single reads (RFC 8785
 * by `canonicalize`, SHA-256 by node:crypto), never with the service's functions.
 */
const db = () => harness().db;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const setDigest = (objects: Map<string, unknown>) =>
  sha256(
    [...objects]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, o]) => `${id}:${sha256(canonicalize(o)!)}\n`)
      .join(''),
  );

type Path = '/vendors' | '/jobs' | '/orders' | '/items' | '/locations';
const PATHS: Record<string, Path> = { vendor: '/vendors', job: '/jobs', order: '/orders', item: '/items', location: '/locations' };

/** The service's digest of a resource equals the digest of the single reads of `ids` (all its live objects). */
async function expectDigestOfReads(api: Client, resource: string, ids: string[]): Promise<void> {
  const reads = new Map<string, unknown>();
  for (const id of ids) reads.set(id, expectStatus(await api.get(`${PATHS[resource]}/${id}`), 200).body);
  const answer = expectStatus(await api.get(`/reconciliation/${resource}`), 200).body;
  expect(answer.count, `${resource} count`).to.equal(ids.length);
  expect(answer.digest, `${resource} digest`).to.equal(setDigest(reads));
}

const liveIds = async (table: string, orgId: string): Promise<string[]> => {
  const q = db()(table).where({ organization_id: orgId });
  if (table === 'vendors' || table === 'orders' || table === 'locations') q.whereNull('deleted_at');
  return (await q.select('id')).map((r: { id: string }) => r.id);
};

describe('changes made in the database reach the feed (feed capture)', function () {
  this.timeout(300_000);
  let receiver: Receiver;
  let worker: BackgroundWorker | undefined;
  let wakeOthers: (() => Promise<void>) | undefined;
  const startWorker = async () =>
    (worker = await startBackgroundWorker({
      db: db(),
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: { ...webhookSettings(loadConfig()), allowedHosts: ['127.0.0.1'], timeoutMs: 2000, retryBaseMs: 20, retryMaxMs: 200, concurrency: 2 },
      pollInterval: 100,
    }));
  const stopWorker = async () => {
    await worker?.stop();
    worker = undefined;
  };

  before(async function () {
    onlyDirect(this, 'writes to the database of the in-process service and runs its worker in the test process');
    receiver = await new Receiver().start();
    wakeOthers = await restOtherEndpoints(db());
    await startWorker();
  });
  after(async () => {
    await stopWorker();
    await receiver?.stop();
    await wakeOthers?.();
  });

  /** Waits for `n` entries after `cursor` (a bounded poll, reading on from where it stopped) and returns them. */
  async function entriesAfter(api: Client, cursor: string, n: number): Promise<{ entries: Change[]; cursor: string }> {
    const entries: Change[] = [];
    let at = cursor;
    await eventually(
      `${n} entries`,
      async () => {
        const read = await readAll(api, at);
        entries.push(...read.entries);
        at = read.cursor;
        if (entries.length < n) await new Promise((r) => setTimeout(r, 100));
        return entries.length >= n;
      },
      120_000,
    );
    return { entries, cursor: at };
  }

  /** A webhook endpoint of the organization sending to the receiver at `path`. */
  async function subscribe(api: Client, path: string): Promise<void> {
    const endpoint = expectStatus(await api.post('/webhook-endpoints', { url: receiver.url(path) }), 201).body;
    receiver.secrets.set(path, [endpoint.secret]);
  }

  const summary = (entries: Change[]) => entries.map((e) => `${e.type} ${e.id}`).sort();

  it('SQL INSERT, UPDATE (real and no-op) and DELETE of vendors, jobs, orders and items: each once in GET /changes and at a webhook, origin database, digests as read', async () => {
    const org = await newOrg();
    const path = '/sql';
    await subscribe(org.api, path);
    let cursor = await headCursor(org.api);

    // INSERT.
    const [vendor] = await db()('vendors').insert({ organization_id: org.id, code: 'SQL-V', name: 'Ferguson' }).returning('id');
    const [job] = await db()('jobs').insert({ organization_id: org.id, code: 'SQL-J', name: 'Riverside' }).returning('id');
    const [spareJob] = await db()('jobs').insert({ organization_id: org.id, code: 'SQL-J2', name: 'Spare' }).returning('id');
    const orderId = await makeOrder({ id: org.id, userId: org.userId }, { job_id: job.id, vendor_id: vendor.id }, [
      { line_number: 1, description: 'EMT conduit', quantity: 10, unit_price: 2 },
      { line_number: 2, description: 'Couplings', quantity: 4, unit_price: 1 },
    ]);
    const items = (await db()('items').where({ order_id: orderId }).orderBy('line_number').select('id')).map((r: { id: string }) => r.id);
    let read = await entriesAfter(org.api, cursor, 6);
    expect(summary(read.entries)).to.deep.equal(
      [
        `vendor.created ${vendor.id}`,
        `job.created ${job.id}`,
        `job.created ${spareJob.id}`,
        `order.created ${orderId}`,
        `item.created ${items[0]}`,
        `item.created ${items[1]}`,
      ].sort(),
    );
    expect(read.entries.every((e: any) => e.origin.credentialType === 'database')).to.equal(true);
    const vendorRead = expectStatus(await org.api.get(`/vendors/${vendor.id}`), 200).body;
    expect(read.entries.find((e) => e.id === vendor.id)!.data).to.deep.equal(vendorRead);
    const all: Change[] = [...read.entries];
    cursor = read.cursor;

    // UPDATE that changes the reads.
    await db()('vendors').where({ id: vendor.id }).update({ name: 'Ferguson Enterprises' });
    await db()('jobs').where({ id: job.id }).update({ name: 'Riverside Medical' });
    await db()('orders').where({ id: orderId }).update({ notes: 'Deliver to gate 3' });
    await db()('items').where({ id: items[0] }).update({ description: 'EMT conduit 3/4"' });
    read = await entriesAfter(org.api, cursor, 4);
    expect(read.entries.map((e) => [e.type, e.id, e.changedFields, e.previous])).to.have.deep.members([
      ['vendor.updated', vendor.id, ['name'], { name: 'Ferguson' }],
      ['job.updated', job.id, ['name'], { name: 'Riverside' }],
      ['order.updated', orderId, ['notes'], { notes: null }],
      ['item.updated', items[0], ['description'], { description: 'EMT conduit' }],
    ]);
    all.push(...read.entries);
    cursor = read.cursor;

    // UPDATEs that leave the reads as they are are nothing; a later real change shows they were processed.
    await db()('vendors').where({ id: vendor.id }).update({ name: 'Ferguson Enterprises' });
    await db().raw('UPDATE jobs SET name = name WHERE id = ?', [job.id]);
    await db().raw('UPDATE orders SET notes = notes WHERE id = ?', [orderId]);
    await db().raw('UPDATE items SET description = description WHERE order_id = ?', [orderId]);
    await db()('jobs').where({ id: spareJob.id }).update({ name: 'Spare yard' });
    read = await entriesAfter(org.api, cursor, 1);
    expect(read.entries.map((e) => `${e.type} ${e.id}`)).to.deep.equal([`job.updated ${spareJob.id}`]);
    all.push(...read.entries);
    cursor = read.cursor;

    // DELETE: a hard delete of an item and of a job, a soft delete of a vendor, an order deleted with its other item.
    await db()('items').where({ id: items[1] }).delete();
    await db()('jobs').where({ id: spareJob.id }).delete();
    await db().raw('UPDATE vendors SET deleted_at = now() WHERE id = ?', [vendor.id]);
    await db()('orders').where({ id: orderId }).delete();
    read = await entriesAfter(org.api, cursor, 5);
    expect(summary(read.entries)).to.deep.equal(
      [`item.deleted ${items[1]}`, `job.deleted ${spareJob.id}`, `vendor.deleted ${vendor.id}`, `order.deleted ${orderId}`, `item.deleted ${items[0]}`].sort(),
    );
    expect(read.entries.every((e) => typeof e.data.deletedAt === 'string' && e.data.id === e.id)).to.equal(true);
    all.push(...read.entries);

    // Exactly once: nothing more arrives (the queue is empty), and the receiver got each entry once.
    await eventually('the queue drained', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    expect((await readAll(org.api, read.cursor)).entries).to.deep.equal([]);
    await eventually('every entry delivered', () => receiver.accepted(path).length >= all.length, 60_000);
    // (The receiver also got the endpoint's own creation, before these.)
    const delivered = receiver.accepted(path).filter((r) => r.body.type !== 'webhook_endpoint.created');
    expect(delivered.map((r) => r.body.data.cursor)).to.deep.equal(all.map((e) => e.cursor));

    for (const [resource, table] of [
      ['vendor', 'vendors'],
      ['job', 'jobs'],
      ['order', 'orders'],
      ['item', 'items'],
    ]) {
      await expectDigestOfReads(org.api, resource, await liveIds(table, org.id));
    }
  });

  it('an API write is entered once: the database does not capture it again', async () => {
    const org = await newOrg();
    const cursor = await headCursor(org.api);
    const created = expectStatus(await org.api.post('/vendors', { code: 'API-V', name: 'Graybar' }), 201).body;
    expectStatus(await org.api.patch(`/vendors/${created.id}`, { name: 'Graybar Electric' }), 200);
    // The triggers skipped the API's transactions: nothing was queued.
    expect(await db()('feed_captures').where({ organization_id: org.id }).first('seq')).to.equal(undefined);
    const { entries } = await readAll(org.api, cursor);
    expect(entries.map((e: any) => [e.type, e.origin.credentialType])).to.deep.equal([
      ['vendor.created', 'api_key'],
      ['vendor.updated', 'api_key'],
    ]);
  });

  it('a COPY of many rows of vendors, jobs, orders and items: one created entry each, digests as read', async function () {
    const org = await newOrg();
    const dir = mkdtempSync(join(tmpdir(), 'feed-capture-'));
    chmodSync(dir, 0o755);
    const copy = async (table: string, columns: string[], rows: string[][]) => {
      const file = join(dir, `${table}.csv`);
      writeFileSync(file, rows.map((r) => r.join(',')).join('\n') + '\n');
      chmodSync(file, 0o644);
      // A server-side COPY: the embedded server runs on this machine as the test's user.
      await db().raw(`COPY ?? (${columns.map(() => '??').join(', ')}) FROM '${file}' WITH (FORMAT csv)`, [table, ...columns]);
    };
    try {
      const cursor = await headCursor(org.api);
      const n = 300;
      await copy(
        'vendors',
        ['organization_id', 'code', 'name'],
        Array.from({ length: n }, (_, i) => [org.id, `CV-${i}`, `Vendor ${i}`]),
      );
      await copy(
        'jobs',
        ['organization_id', 'code', 'name'],
        Array.from({ length: n }, (_, i) => [org.id, `CJ-${i}`, `Job ${i}`]),
      );
      await copy(
        'orders',
        ['organization_id', 'purchase_order_number', 'integration_state'],
        Array.from({ length: 20 }, (_, i) => [org.id, `CPO-${i}`, 'NOT_LINKED']),
      );
      const orders = await liveIds('orders', org.id);
      await copy(
        'items',
        ['organization_id', 'order_id', 'line_number', 'description'],
        orders.flatMap((o) => Array.from({ length: 10 }, (_, i) => [org.id, o, String(i + 1), `Line ${i + 1}`])),
      );
      const expected = 2 * n + 20 + 200;
      const { entries } = await entriesAfter(org.api, cursor, expected);
      expect(entries).to.have.length(expected);
      expect(new Set(entries.map((e) => `${e.resource} ${e.id}`)).size).to.equal(expected);
      expect(entries.every((e) => e.type.endsWith('.created'))).to.equal(true);
      await expectDigestOfReads(org.api, 'order', orders);
      await expectDigestOfReads(org.api, 'item', await liveIds('items', org.id));
      const vendors = await liveIds('vendors', org.id);
      expect(expectStatus(await org.api.get('/reconciliation/vendor'), 200).body.count).to.equal(vendors.length);
    } catch (err) {
      if (/permission denied|must be superuser|pg_read_server_files/.test(String(err))) this.skip();
      throw err;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a migration-like bulk UPDATE of 10,000 rows: one updated entry each, digest as read', async () => {
    const org = await newOrg();
    let cursor = await headCursor(org.api);
    await db().raw(`INSERT INTO vendors (organization_id, code, name) SELECT ?, 'BV-' || g, 'Vendor ' || g FROM generate_series(1, 10000) AS g`, [org.id]);
    cursor = (await entriesAfter(org.api, cursor, 10_000)).cursor;
    await db().raw(`UPDATE vendors SET name = name || ' Supply' WHERE organization_id = ?`, [org.id]);
    const { entries } = await entriesAfter(org.api, cursor, 10_000);
    expect(entries).to.have.length(10_000);
    expect(new Set(entries.map((e) => e.id)).size).to.equal(10_000);
    expect(entries.every((e) => e.type === 'vendor.updated' && e.changedFields!.join() === 'name' && e.data.name.endsWith(' Supply'))).to.equal(true);
    // Client side from the entries (each the object as read at its change), a sample checked against the single reads.
    const reads = new Map<string, unknown>(entries.map((e) => [e.id, e.data]));
    for (const e of entries.slice(0, 20)) expect(expectStatus(await org.api.get(`/vendors/${e.id}`), 200).body).to.deep.equal(e.data);
    const answer = expectStatus(await org.api.get('/reconciliation/vendor'), 200).body;
    expect(answer.count).to.equal(10_000);
    expect(answer.digest).to.equal(setDigest(reads));
  });

  it('a change committed while no worker runs: the entry arrives once when one starts, and a digest never misses it', async () => {
    const org = await newOrg();
    const path = '/restart';
    await subscribe(org.api, path);
    const start = await headCursor(org.api);
    const [vendor] = await db()('vendors').insert({ organization_id: org.id, code: 'R-V', name: 'Before' }).returning('id');
    const cursor = (await entriesAfter(org.api, start, 1)).cursor;
    await stopWorker();
    try {
      await db()('vendors').where({ id: vendor.id }).update({ name: 'After' });
      // No instance appends it: it waits in the database.
      expect(Number((await db()('feed_captures').where({ organization_id: org.id }).count('* as n').first())!.n)).to.equal(1);
      expect((await readAll(org.api, cursor)).entries).to.deep.equal([]);
    } finally {
      await startWorker();
    }
    const { entries } = await entriesAfter(org.api, cursor, 1);
    expect(entries.map((e) => [e.type, e.id, e.data.name])).to.deep.equal([['vendor.updated', vendor.id, 'After']]);
    await eventually('delivered', () => receiver.accepted(path).some((r) => r.body.data.cursor === entries[0].cursor));
    expect(receiver.accepted(path).filter((r) => r.body.data.id === vendor.id && r.body.type === 'vendor.updated')).to.have.length(1);

    // Without any worker, the digest completes the captured changes before it answers.
    await stopWorker();
    try {
      await db()('vendors').where({ id: vendor.id }).update({ name: 'After again' });
      await expectDigestOfReads(org.api, 'vendor', [vendor.id]);
      const again = (await readAll(org.api, entries[0].cursor)).entries;
      expect(again.map((e) => [e.type, e.data.name])).to.deep.equal([['vendor.updated', 'After again']]);
    } finally {
      await startWorker();
    }
  });

  it('an instance killed while it appends a captured change: the entry arrives once after a restart', async () => {
    const org = await newOrg();
    const path = '/killed';
    await subscribe(org.api, path);
    const [vendor] = await db()('vendors').insert({ organization_id: org.id, code: 'K-V', name: 'Before' }).returning('id');
    await eventually('the insert appended', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    // ... and delivered: otherwise the child below could be sending it when it is killed, and the
    // lease it held (the attempt timeout plus 30 s) would hold back the update's delivery past the
    // wait at the end (seen on a loaded machine).
    await eventually('the insert delivered', () => receiver.accepted(path).some((r) => r.body.type === 'vendor.created' && r.body.data.id === vendor.id));
    const start = await headCursor(org.api);
    // The only worker is a child instance's; the organization's feed head is held, so its task waits there.
    await stopWorker();
    const { child } = await startCompiledServer({ BACKGROUND_WORKER: 'on' });
    const holder = await db().transaction();
    try {
      await holder.raw('SELECT position FROM feed_heads WHERE organization_id = ? FOR UPDATE', [org.id]);
      await db()('vendors').where({ id: vendor.id }).update({ name: 'After' });
      const waiting = async () =>
        Number(
          (
            await db().raw(
              `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%feed_heads%' AND pid <> pg_backend_pid()`,
            )
          ).rows[0].n,
        );
      await eventually('the child waits for the feed head', async () => (await waiting()) > 0, 60_000);
      child.process.kill('SIGKILL');
      await new Promise((resolve) =>
        child.process.exitCode !== null || child.process.signalCode !== null ? resolve(null) : child.process.once('exit', resolve),
      );
    } finally {
      await holder.commit();
    }
    // Its transaction could not finish: the change is still queued, and not in the feed.
    await eventually('the killed backend gone', async () => {
      const { rows } = await db().raw(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%feed_heads%' AND state <> 'idle' AND pid <> pg_backend_pid()`,
      );
      return Number(rows[0].n) === 0;
    });
    expect(Number((await db()('feed_captures').where({ organization_id: org.id }).count('* as n').first())!.n)).to.equal(1);
    expect((await readAll(org.api, start)).entries).to.deep.equal([]);
    await startWorker();
    const { entries } = await entriesAfter(org.api, start, 1);
    expect(entries.map((e) => [e.type, e.id, e.data.name])).to.deep.equal([['vendor.updated', vendor.id, 'After']]);
    await eventually('the queue drained', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    expect((await readAll(org.api, entries[0].cursor)).entries).to.deep.equal([]);
    await eventually('delivered', () => receiver.accepted(path).some((r) => r.body.data.cursor === entries[0].cursor));
    expect(receiver.accepted(path).filter((r) => r.body.type === 'vendor.updated')).to.have.length(1);
  });

  it('a tax code renamed by SQL: the items that show it follow in the digests', async () => {
    const org = await newOrg();
    const taxCodeId = await insertTaxCode(org.id, 'TX-OLD', 0.05);
    const orderId = await makeOrder({ id: org.id, userId: org.userId }, {}, [
      { line_number: 1, description: 'Wire', quantity: 1, unit_price: 3, tax_code_id: taxCodeId },
      { line_number: 2, description: 'Boxes', quantity: 2, unit_price: 1, tax_code_id: taxCodeId },
    ]);
    const items = await liveIds('items', org.id);
    await expectDigestOfReads(org.api, 'item', items);
    const cursor = await headCursor(org.api);
    await db()('tax_codes').where({ id: taxCodeId }).update({ code: 'TX-NEW' });
    const { entries } = await entriesAfter(org.api, cursor, 1);
    expect(entries.map((e) => [e.type, e.changedFields])).to.deep.equal([['tax_code.updated', ['code']]]);
    const read = expectStatus(await org.api.get(`/items/${items[0]}`), 200).body;
    expect(read.taxCode?.code).to.equal('TX-NEW');
    await expectDigestOfReads(org.api, 'item', items);
    expect(orderId).to.be.a('string');
  });

  it('SQL changes to the tables that are part of other objects’ reads (links, attachments, codes): entries of those objects, origin database, digests as read', async () => {
    const org = await newOrg();
    const group = expectStatus(await org.api.post('/groups', { name: 'Electrical', code: 'ELEC' }), 201).body;
    const job = expectStatus(await org.api.post('/jobs', { code: 'LINK-J', name: 'Riverside', groupIds: [group.id] }), 201).body;
    const location = expectStatus(await org.api.post('/locations', { name: 'North yard', type: 'Jobsite' }), 201).body;
    const glCode = await insertCode('gl_codes', org.id, 'GL-OLD');
    const orderId = await makeOrder({ id: org.id, userId: org.userId }, { job_id: job.id }, [
      { line_number: 1, description: 'Wire', quantity: 1, unit_price: 3, gl_code_id: glCode },
    ]);
    const [itemId] = await liveIds('items', org.id);
    // The order store's insert is captured too: its entries first.
    await eventually('the order appended', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    const cursor = await headCursor(org.api);

    await db()('job_locations').insert({ organization_id: org.id, job_id: job.id, location_id: location.id });
    await db()('job_groups').where({ job_id: job.id }).delete();
    await insertAttachment(org.id, orderId, 'packing-slip', 'slip.pdf');
    await db()('gl_codes').where({ id: glCode }).update({ code: 'GL-NEW' });
    // A change to a code no read shows is nothing.
    await db()('gl_codes').where({ id: glCode }).update({ description: 'Materials' });
    const { entries } = await entriesAfter(org.api, cursor, 4);
    expect(entries.map((e) => [e.type, e.id, e.changedFields])).to.deep.equal([
      ['location.updated', location.id, ['jobs']],
      ['job.updated', job.id, ['groups']],
      ['order.updated', orderId, ['attachments']],
      ['item.updated', itemId, ['glCode']],
    ]);
    expect(entries.every((e: any) => e.origin.credentialType === 'database')).to.equal(true);
    expect(entries[1].previous).to.deep.equal({ groups: job.groups });
    await eventually('the queue drained', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    expect((await readAll(org.api, entries[3].cursor)).entries).to.deep.equal([]);
    await expectDigestOfReads(org.api, 'location', [location.id]);
    await expectDigestOfReads(org.api, 'job', [job.id]);
    await expectDigestOfReads(org.api, 'order', [orderId]);
    await expectDigestOfReads(org.api, 'item', [itemId]);
  });

  it('TRUNCATE of a child table and of a main table: the objects whose reads changed get updated entries, those gone deleted ones', async () => {
    const org = await newOrg();
    const group = expectStatus(await org.api.post('/groups', { name: 'Mechanical', code: 'MECH' }), 201).body;
    const job = expectStatus(await org.api.post('/jobs', { code: 'TR-J', name: 'Harbor', groupIds: [group.id] }), 201).body;
    const plain = expectStatus(await org.api.post('/jobs', { code: 'TR-K', name: 'Plain' }), 201).body;
    const bom = expectStatus(await org.api.post('/jobs/TR-J/billOfMaterials'), 201).body;
    const bomItems = expectStatus(
      await org.api.post(`/billOfMaterials/${bom.id}/items`, {
        billOfMaterialsItems: [
          { description: 'Ground rod', estimatedQuantity: 3 },
          { description: 'Clamp', estimatedQuantity: 6 },
        ],
      }),
      201,
    ).body as { id: string }[];
    const cursor = await headCursor(org.api);

    await db().raw('TRUNCATE job_groups');
    await db().raw('TRUNCATE bill_of_materials_items');
    const { entries } = await entriesAfter(org.api, cursor, 3);
    // Per resource in the order queued; the job without groups is unchanged, so nothing.
    expect(entries.map((e) => [e.type, e.id, e.changedFields ?? null])).to.deep.equal([
      ['job.updated', job.id, ['groups']],
      ...bomItems
        .map((i) => i.id)
        .sort()
        .map((id) => ['bom_item.deleted', id, null]),
    ]);
    expect(entries.every((e: any) => e.origin.credentialType === 'database')).to.equal(true);
    await eventually('the queue drained', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    expect((await readAll(org.api, entries[2].cursor)).entries).to.deep.equal([]);
    await expectDigestOfReads(org.api, 'job', [job.id, plain.id]);
    const bomDigest = expectStatus(await org.api.get('/reconciliation/bom_item'), 200).body;
    expect(bomDigest.count).to.equal(0);
    expect(bomDigest.digest).to.equal(setDigest(new Map()));
  });

  it('objects shown by others: a vendor, job or location changed by SQL gets the entries of the objects that show it, as the API’s change does', async () => {
    const org = await newOrg();
    const location = expectStatus(await org.api.post('/locations', { name: 'South yard', type: 'Jobsite' }), 201).body;
    const vendor = expectStatus(await org.api.post('/vendors', { code: 'SH-V', name: 'Graybar' }), 201).body;
    expectStatus(await org.api.post(`/vendors/${vendor.id}/location`, { locationId: location.id }), 200);
    const job = expectStatus(await org.api.post('/jobs', { code: 'SH-J', name: 'Harbor', defaultLocationId: location.id }), 201).body;

    // Through the API: the vendor's entry, then the location listing it.
    let cursor = await headCursor(org.api);
    expectStatus(await org.api.patch(`/vendors/${vendor.id}`, { name: 'Graybar Electric' }), 200);
    const api = (await readAll(org.api, cursor)).entries;
    expect(api.map((e) => [e.type, e.id])).to.deep.equal([
      ['vendor.updated', vendor.id],
      ['location.updated', location.id],
    ]);
    cursor = api[api.length - 1].cursor;

    // By SQL: the same entries, with what changed.
    await db()('vendors').where({ id: vendor.id }).update({ name: 'Graybar Supply' });
    let read = await entriesAfter(org.api, cursor, 2);
    expect(read.entries.map((e) => [e.type, e.id, e.changedFields, e.previous])).to.deep.equal([
      ['vendor.updated', vendor.id, ['name'], { name: 'Graybar Electric' }],
      ['location.updated', location.id, ['vendors'], { vendors: [{ id: vendor.id, code: 'SH-V', name: 'Graybar Electric' }] }],
    ]);
    cursor = read.cursor;

    // One statement at a time: the entries of changes queued together are one per object.
    const all = [...read.entries];
    const step = async (change: () => Promise<unknown>, expected: unknown[][]) => {
      await change();
      read = await entriesAfter(org.api, cursor, expected.length);
      expect(read.entries.map((e) => [e.type, e.id, e.changedFields])).to.deep.equal(expected);
      all.push(...read.entries);
      cursor = read.cursor;
    };
    await step(
      () => db()('jobs').where({ id: job.id }).update({ name: 'Harbor Point' }),
      [
        ['job.updated', job.id, ['name']],
        ['location.updated', location.id, ['jobs']],
      ],
    );
    await step(
      () => db()('locations').where({ id: location.id }).update({ name: 'South yard, gate 2' }),
      [
        ['location.updated', location.id, ['name']],
        ['vendor.updated', vendor.id, ['location']],
      ],
    );
    // A change the location's list does not show is nothing for the location.
    await step(() => db()('jobs').where({ id: job.id }).update({ state: 'CLOSED' }), [['job.updated', job.id, ['state']]]);
    read = { entries: all, cursor };
    expect(read.entries.every((e: any) => e.origin.credentialType === 'database')).to.equal(true);
    await eventually('the queue drained', async () => !(await db()('feed_captures').where({ organization_id: org.id }).first('seq')));
    expect((await readAll(org.api, read.cursor)).entries).to.deep.equal([]);
    await expectDigestOfReads(org.api, 'location', [location.id]);
    await expectDigestOfReads(org.api, 'vendor', [vendor.id]);
    await expectDigestOfReads(org.api, 'job', [job.id]);
  });

  it('every capture trigger runs: a statement on each captured table (no rows) queues nothing and fails nothing', async () => {
    // Statement triggers fire for statements that touch no row: every trigger's queries are planned and run.
    const tables = [...new Set([...Object.keys(CAPTURED_TABLES), ...Object.keys(OWNERS)])];
    const trx = await db().transaction();
    try {
      const before = Number((await trx('feed_captures').count('* as n').first())!.n);
      for (const table of tables) {
        await trx.raw('INSERT INTO ?? SELECT * FROM ?? WHERE false', [table, table]);
        const column = table === 'organizations' ? 'id' : 'organization_id';
        await trx.raw('UPDATE ?? SET ?? = ?? WHERE false', [table, column, column]);
        await trx.raw('DELETE FROM ?? WHERE false', [table]);
      }
      expect(Number((await trx('feed_captures').count('* as n').first())!.n)).to.equal(before);
    } finally {
      await trx.rollback();
    }
  });
});
