import { expect } from 'chai';
import { onlyDirect } from './support/proxy';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { harness } from './support/harness';
import { Change, readAll } from './support/feed';
import { decodeCursor } from '../src/feed/cursor';
import { requestBackfill } from '../src/resources/reconciliation/backfill';
import { setOrganizationSetting } from '../src/admin/provision';
import { readCopy, reconcile as reconcileCopy } from '../examples/reconcile';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * The digests are computed here independently of the service: RFC 8785 by the `canonicalize`
 * package and SHA-256 by node:crypto, from the objects as their single reads (or the feed)
 * return them, never with the service's own digest functions.
 */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const objectDigest = (o: unknown) => sha256(canonicalize(o)!);
const setDigest = (objects: { id: string; digest: string }[]) =>
  sha256(
    [...objects]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((o) => `${o.id}:${o.digest}\n`)
      .join(''),
  );
const EMPTY = sha256('');
const hexOf = (id: string) => id.replace(/-/g, '');

interface Answer {
  resource: string;
  prefix: string;
  asOf: string;
  count: number;
  digest: string;
  buckets: { prefix: string; count: number; digest: string }[];
  objects?: { id: string; digest: string }[];
}

const reconcile = async (api: Client, resource: string, prefix = ''): Promise<Answer> =>
  expectStatus(await api.get(`/reconciliation/${resource}${prefix ? `?prefix=${prefix}` : ''}`), 200).body;

/** The digests a copy (objects by id) has for a prefix: the same answer, computed here. */
function digestsOf(copy: Map<string, unknown>, prefix = '') {
  const objects = [...copy].filter(([id]) => hexOf(id).startsWith(prefix)).map(([id, o]) => ({ id, digest: objectDigest(o) }));
  const buckets = [...'0123456789abcdef'].map((d) => {
    const inBucket = objects.filter((o) => hexOf(o.id).startsWith(prefix + d));
    return { prefix: prefix + d, count: inBucket.length, digest: setDigest(inBucket) };
  });
  return { count: objects.length, digest: setDigest(objects), buckets, objects: objects.sort((a, b) => (a.id < b.id ? -1 : 1)) };
}

/** The objects of a resource as their single reads return them. */
async function singleReads(
  api: Client,
  path: '/vendors' | '/jobs' | '/orders' | '/items' | '/locations' | '/users',
  ids: string[],
): Promise<Map<string, unknown>> {
  const copy = new Map<string, unknown>();
  for (const id of ids) copy.set(id, expectStatus(await api.get(`${path}/${id}`), 200).body);
  return copy;
}

/** A copy of one resource built by following the feed from its beginning, up to and including `upTo` (a position). */
function replayed(entries: Change[], resource: string, orgId: string, upTo = Infinity): Map<string, unknown> {
  const copy = new Map<string, unknown>();
  for (const e of entries) {
    if (e.resource !== resource || decodeCursor(orgId, e.cursor)! > upTo) continue;
    if (e.type.endsWith('.deleted')) copy.delete(e.id);
    else copy.set(e.id, e.data);
  }
  return copy;
}

describe('reconciliation digests (GET /reconciliation/{resource})', () => {
  let org: TestOrg;
  let vendorIds: string[];

  before(async () => {
    org = await newOrg();
    const vendors = expectStatus(
      await org.api.post('/vendors/batch', { inputs: Array.from({ length: 40 }, (_, i) => ({ code: `RV-${i}`, name: `Reconciled vendor ${i}` })) }),
      200,
    ).body;
    vendorIds = vendors.map((v: { id: string }) => v.id);
  });

  it('digests computed from the single reads equal the service’s, for vendors, jobs, orders and items', async function () {
    this.timeout(120_000);
    const site = expectStatus(await org.api.post('/locations', { name: 'Reconciled yard', type: 'Jobsite' }), 201).body;
    const jobs = expectStatus(
      await org.api.post('/jobs/batch', {
        inputs: [
          { code: 'RJ-1', name: 'Riverside', defaultLocationId: site.id },
          { code: 'RJ-2', name: 'Elk Grove' },
        ],
      }),
      200,
    ).body;
    expectStatus(await org.api.post('/tax-codes', { code: 'RTX', description: 'Reconciled tax', taxPercent: 0.0725 }), 201);
    const orderIds: string[] = [];
    for (const n of [1, 2, 3]) {
      const order = expectStatus(
        await org.api.post('/orders', {
          purchaseOrderNumber: `RPO-${n}`,
          distributorContactEmail: 'dana@ferguson.example',
          distributorContactCompany: 'Ferguson',
          jobId: jobs[0].id,
          vendorId: vendorIds[n],
          items: [
            { lineNumber: 1, description: 'Copper pipe 3/4"', quantity: 12.5, unitPrice: 4.125, taxCode: 'RTX' },
            { lineNumber: 2, description: 'Elbow ½ inch — brass', quantity: 3, unitPrice: 0.1 },
          ],
        }),
        201,
      ).body;
      orderIds.push(order.id);
    }
    const itemIds: string[] = [];
    for (const id of orderIds) itemIds.push(...expectStatus(await org.api.get(`/orders/${id}/items?limit=100`), 200).body.map((i: { id: string }) => i.id));
    expect(itemIds).to.have.length(6);

    for (const [resource, path, ids] of [
      ['vendor', '/vendors', vendorIds],
      ['job', '/jobs', jobs.map((j: { id: string }) => j.id)],
      ['order', '/orders', orderIds],
      ['item', '/items', itemIds],
      ['location', '/locations', [site.id]],
    ] as const) {
      const mine = digestsOf(await singleReads(org.api, path, [...ids]));
      const answer = await reconcile(org.api, resource);
      expect(answer.resource).to.equal(resource);
      expect(answer.count, resource).to.equal(ids.length);
      expect(answer.objects, resource).to.deep.equal(mine.objects);
      expect(answer.buckets, resource).to.deep.equal(mine.buckets);
      expect(answer.digest, resource).to.equal(mine.digest);
    }
  });

  it('one change moves exactly one top-level bucket’s digest, and asOf', async () => {
    const before = await reconcile(org.api, 'vendor');
    const id = vendorIds[7];
    expectStatus(await org.api.patch(`/vendors/${id}`, { name: 'Renamed for reconciliation' }), 200);
    const after = await reconcile(org.api, 'vendor');
    expect(after.asOf).to.not.equal(before.asOf);
    expect(decodeCursor(org.id, after.asOf)).to.be.greaterThan(decodeCursor(org.id, before.asOf)!);
    expect(after.count).to.equal(before.count);
    expect(after.digest).to.not.equal(before.digest);
    const moved = after.buckets.filter((b, i) => b.digest !== before.buckets[i].digest).map((b) => b.prefix);
    expect(moved).to.deep.equal([hexOf(id)[0]]);
    const single = expectStatus(await org.api.get(`/vendors/${id}`), 200).body;
    expect(after.objects!.find((o) => o.id === id)!.digest).to.equal(objectDigest(single));
  });

  it('a job whose last change set its purchase order counter is digested as its single read shows it (without the counter)', async () => {
    await setOrganizationSetting(harness().db, org.id, 'po-counter', true);
    const job = expectStatus(await org.api.post('/jobs', { code: 'RJ-COUNTER', name: 'Counted' }), 201).body;
    const reply = expectStatus(await org.api.post(`/jobs/${job.id}/nextPurchaseOrderNumber`, { nextCounter: 4242 }), 200).body;
    // The write's reply shows the counter; the job's read, its state and its digest do not.
    const single = expectStatus(await org.api.get(`/jobs/${job.id}`), 200);
    expect(Object.keys(reply).filter((k) => !(k in single.body))).to.not.deep.equal([]);
    const answer = await reconcile(org.api, 'job', hexOf(job.id).slice(0, 8));
    expect(answer.objects).to.deep.equal([{ id: job.id, digest: objectDigest(single.body) }]);
    expect(single.headers.get('etag')).to.equal(`"${objectDigest(single.body)}"`);
  });

  it('a deletion leaves the count and its bucket', async () => {
    const before = await reconcile(org.api, 'vendor');
    const id = vendorIds[9];
    expectStatus(await org.api.delete(`/vendors/${id}`), 200);
    const after = await reconcile(org.api, 'vendor');
    expect(after.count).to.equal(before.count - 1);
    const bucket = hexOf(id)[0];
    for (const [i, b] of after.buckets.entries()) {
      expect(b.count, b.prefix).to.equal(before.buckets[i].count - (b.prefix === bucket ? 1 : 0));
      if (b.prefix !== bucket) expect(b.digest).to.equal(before.buckets[i].digest);
    }
    expect(after.objects!.map((o) => o.id)).to.not.include(id);
    const drilled = await reconcile(org.api, 'vendor', hexOf(id).slice(0, 3));
    expect(drilled.objects!.map((o) => o.id)).to.not.include(id);
  });

  it('a drill-down from the top digest finds the one changed object in at most 8 requests', async function () {
    this.timeout(180_000);
    const own = await newOrg();
    // A copy kept by following the feed, as a connector keeps it: 2,400 vendors, too many to list at the top.
    for (let b = 0; b < 3; b++) {
      const inputs = Array.from({ length: 800 }, (_, i) => ({ code: `DV-${b}-${i}`, name: `Drilled vendor ${b}-${i}` }));
      expectStatus(await own.api.post('/vendors/batch', { inputs }), 200);
    }
    const copy = replayed((await readAll(own.api, undefined)).entries, 'vendor', own.id);
    expect(copy.size).to.equal(2400);
    const changed = [...copy.keys()][1234];
    expectStatus(await own.api.patch(`/vendors/${changed}`, { name: 'Changed behind the copy' }), 200);

    let requests = 0;
    const differing: string[] = [];
    const drill = async (prefix: string): Promise<void> => {
      requests += 1;
      const answer = await reconcile(own.api, 'vendor', prefix);
      const mine = digestsOf(copy, prefix);
      if (answer.digest === mine.digest) return;
      if (answer.objects) {
        const theirs = new Map(answer.objects.map((o) => [o.id, o.digest]));
        const ours = new Map(mine.objects.map((o) => [o.id, o.digest]));
        for (const id of new Set([...theirs.keys(), ...ours.keys()])) if (theirs.get(id) !== ours.get(id)) differing.push(id);
        return;
      }
      for (const [i, b] of answer.buckets.entries()) if (b.digest !== mine.buckets[i].digest) await drill(b.prefix);
    };
    await drill('');
    expect(differing).to.deep.equal([changed]);
    expect(requests).to.be.at.most(8);
    expect(requests).to.be.at.least(2);
  });

  it('asOf under concurrent writers: every entry up to asOf is in the digest, none after it', async function () {
    this.timeout(180_000);
    const own = await newOrg();
    const seed = expectStatus(
      await own.api.post('/vendors/batch', { inputs: Array.from({ length: 20 }, (_, i) => ({ code: `CV-${i}`, name: `Concurrent ${i}` })) }),
      200,
    ).body;
    let writing = true;
    const writer = async (w: number) => {
      for (let n = 0; writing; n++) {
        const target = seed[(w * 7 + n) % seed.length];
        if (n % 3 === 0) expectStatus(await own.api.post('/vendors', { code: `CW-${w}-${n}`, name: `Written ${w}-${n}` }), 201);
        else expectStatus(await own.api.patch(`/vendors/${target.id}`, { name: `Writer ${w} pass ${n}` }), 200);
      }
    };
    const writers = [0, 1, 2].map(writer);
    const answers: Answer[] = [];
    try {
      for (let i = 0; i < 8; i++) answers.push(await reconcile(own.api, 'vendor'));
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    const { entries } = await readAll(own.api, undefined);
    const positions = new Set(answers.map((a) => decodeCursor(own.id, a.asOf)));
    expect(positions.size, 'the writers moved the head between answers').to.be.greaterThan(1);
    for (const answer of answers) {
      const mine = digestsOf(replayed(entries, 'vendor', own.id, decodeCursor(own.id, answer.asOf)!));
      expect(answer.count).to.equal(mine.count);
      expect(answer.digest, `asOf ${answer.asOf}`).to.equal(mine.digest);
    }
  });

  it('a change that alters another object’s read (renaming a job a location lists) moves that object’s digest too', async () => {
    const own = await newOrg();
    const site = expectStatus(await own.api.post('/locations', { name: 'Listing yard', type: 'Jobsite' }), 201).body;
    expectStatus(await own.api.post('/jobs/batch', { inputs: [{ code: 'LJ-1', name: 'Before', defaultLocationId: site.id }] }), 200);
    const before = await reconcile(own.api, 'location');
    expectStatus(await own.api.patch('/jobs/LJ-1', { name: 'After' }), 200);
    const after = await reconcile(own.api, 'location');
    expect(after.digest).to.not.equal(before.digest);
    const read = expectStatus(await own.api.get(`/locations/${site.id}`), 200).body;
    expect(read.jobs).to.deep.include({ id: read.jobs[0].id, code: 'LJ-1', name: 'After' });
    expect(after.objects).to.deep.equal([{ id: site.id, digest: objectDigest(read) }]);
  });

  it('objects that show another object without an entry of their own (an item’s tax code, a job’s groups) get their digests rebuilt', async () => {
    const own = await newOrg();
    expectStatus(await own.api.post('/tax-codes', { code: 'STX', description: 'Shown tax', taxPercent: 0.05 }), 201);
    const group = expectStatus(await own.api.post('/groups', { name: 'Shown group', code: 'SG' }), 201).body;
    const job = expectStatus(await own.api.post('/jobs', { code: 'SJ-1', name: 'Shown job', groupIds: [group.id] }), 201).body;
    const order = expectStatus(
      await own.api.post('/orders', {
        purchaseOrderNumber: 'SPO-1',
        distributorContactEmail: 'dana@ferguson.example',
        distributorContactCompany: 'Ferguson',
        jobId: job.id,
        items: [{ lineNumber: 1, description: 'Rebar #4', quantity: 40, unitPrice: 7.5, taxCode: 'STX' }],
      }),
      201,
    ).body;
    const [item] = expectStatus(await own.api.get(`/orders/${order.id}/items`), 200).body;
    const before = { item: await reconcile(own.api, 'item'), job: await reconcile(own.api, 'job') };
    expectStatus(await own.api.patch('/tax-codes/STX', { taxPercent: 0.0625 }), 200);
    expectStatus(await own.api.patch(`/groups/${group.id}`, { name: 'Shown group, renamed' }), 200);
    const after = { item: await reconcile(own.api, 'item'), job: await reconcile(own.api, 'job') };
    const itemRead = expectStatus(await own.api.get(`/items/${item.id}`), 200).body;
    const jobRead = expectStatus(await own.api.get(`/jobs/${job.id}`), 200).body;
    expect(itemRead.taxCode!.taxPercent).to.equal(0.0625);
    expect(jobRead.groups[0].name).to.equal('Shown group, renamed');
    expect(after.item.digest).to.not.equal(before.item.digest);
    expect(after.item.objects).to.deep.equal([{ id: item.id, digest: objectDigest(itemRead) }]);
    expect(after.job.digest).to.not.equal(before.job.digest);
    expect(after.job.objects).to.deep.equal([{ id: job.id, digest: objectDigest(jobRead) }]);
  });

  it('the cached bucket digests follow every write: changes, creations, deletions and backfills behind the feed’s back', async function () {
    this.timeout(120_000);
    const own = await newOrg();
    const db = harness().db;
    const made = expectStatus(
      await own.api.post('/vendors/batch', { inputs: Array.from({ length: 24 }, (_, i) => ({ code: `CB-${i}`, name: `Cached ${i}` })) }),
      200,
    ).body;
    const ids: string[] = made.map((v: { id: string }) => v.id);
    const expectCurrent = async (live: string[]) => {
      const answer = await reconcile(own.api, 'vendor');
      const mine = digestsOf(await singleReads(own.api, '/vendors', live));
      expect(answer.buckets).to.deep.equal(mine.buckets);
      expect(answer.digest).to.equal(mine.digest);
      expect(answer.count).to.equal(live.length);
      return answer;
    };
    const first = await expectCurrent(ids);
    // Built once, then answered from the stored buckets.
    const cached = await db('feed_object_bucket_lines').where({ organization_id: own.id, resource: 'vendor' }).select('prefix', 'digest', 'count');
    expect(cached).to.have.length(17);
    expect(cached.find((c) => c.prefix === '')).to.include({ digest: first.digest, count: ids.length });
    expect(await reconcile(own.api, 'vendor')).to.deep.include({ digest: first.digest, buckets: first.buckets });

    expectStatus(await own.api.patch(`/vendors/${ids[3]}`, { name: 'Cached, changed' }), 200);
    await expectCurrent(ids);
    expectStatus(await own.api.delete(`/vendors/${ids[5]}`), 200);
    const live = ids.filter((id) => id !== ids[5]);
    await expectCurrent(live);
    const added = expectStatus(await own.api.post('/vendors', { code: 'CB-NEW', name: 'Cached, added' }), 201).body;
    live.push(added.id);
    await expectCurrent(live);
    // Changed without the feed, then backfilled: the backfill moves the bucket's version too.
    await db('vendors').where({ organization_id: own.id, id: ids[7] }).update({ name: 'Corrected behind the feed' });
    await requestBackfill(db, own.id, ['vendor']);
    await expectCurrent(live);
    // An emptied cache (an UNLOGGED table after a crash) is built again.
    await db('feed_object_bucket_lines').where({ organization_id: own.id }).delete();
    await expectCurrent(live);
  });

  it('a change of an object others show owes a rebuild only to the objects that show it (a tax code: its items and orders)', async function () {
    this.timeout(120_000);
    const own = await newOrg();
    const db = harness().db;
    for (const code of ['TA', 'TB']) expectStatus(await own.api.post('/tax-codes', { code, description: `Tax ${code}`, taxPercent: 0.05 }), 201);
    const job = expectStatus(await own.api.post('/jobs', { code: 'TJ-1', name: 'Taxed job' }), 201).body;
    const order = expectStatus(
      await own.api.post('/orders', {
        purchaseOrderNumber: 'TPO-1',
        distributorContactEmail: 'dana@ferguson.example',
        distributorContactCompany: 'Ferguson',
        jobId: job.id,
        items: [
          { lineNumber: 1, description: 'Taxed A', quantity: 1, unitPrice: 2, taxCode: 'TA' },
          { lineNumber: 2, description: 'Taxed B', quantity: 1, unitPrice: 3, taxCode: 'TB' },
        ],
      }),
      201,
    ).body;
    const items = expectStatus(await own.api.get(`/orders/${order.id}/items`), 200).body as { id: string; taxCode: { code: string } }[];
    const [a, b] = ['TA', 'TB'].map((code) => items.find((i) => i.taxCode.code === code)!);
    await reconcile(own.api, 'item');
    const positions = async () =>
      new Map((await db('feed_objects').where({ organization_id: own.id, resource: 'item' }).select('id', 'position')).map((r) => [r.id, Number(r.position)]));
    const before = await positions();

    const taxA = expectStatus(await own.api.patch('/tax-codes/TA', { taxPercent: 0.08 }), 200).body;
    expect(await db('feed_object_backfills').where({ organization_id: own.id }).whereIn('resource', ['item', 'order'])).to.deep.equal([]);
    const owed = await db('feed_object_refreshes').where({ organization_id: own.id }).orderBy('resource').select('resource', 'via', 'ids');
    expect(owed).to.deep.equal([
      { resource: 'item', via: 'tax_code', ids: [taxA.id] },
      { resource: 'order', via: 'tax_code', ids: [taxA.id] },
    ]);

    const answer = await reconcile(own.api, 'item');
    const reads = await singleReads(own.api, '/items', [a.id, b.id]);
    expect((reads.get(a.id) as { taxCode: { taxPercent: number } }).taxCode.taxPercent).to.equal(0.08);
    expect(answer.objects).to.deep.equal(digestsOf(reads).objects);
    const after = await positions();
    expect(after.get(a.id), 'the item showing the tax code is rebuilt').to.be.greaterThan(before.get(a.id)!);
    expect(after.get(b.id), 'the other is left as it is').to.equal(before.get(b.id));
    expect(await db('feed_object_refreshes').where({ organization_id: own.id, resource: 'item' })).to.deep.equal([]);
    // The order (it shows no tax code of its own here) is rebuilt in its turn, and stays as its read.
    expect((await reconcile(own.api, 'order')).objects).to.deep.equal(digestsOf(await singleReads(own.api, '/orders', [order.id])).objects);
  });

  it('renaming a job owes its phases nothing (they show its code); changing its code owes them a rebuild', async () => {
    const own = await newOrg();
    const db = harness().db;
    const job = expectStatus(await own.api.post('/jobs', { code: 'PJ-1', name: 'Phased job' }), 201).body;
    const phase = expectStatus(await own.api.post(`/jobs/${job.id}/phases`, { code: '01', description: 'Sitework' }), 201).body;
    await reconcile(own.api, 'phase');
    expectStatus(await own.api.patch(`/jobs/${job.id}`, { name: 'Phased job, renamed' }), 200);
    expect(await db('feed_object_refreshes').where({ organization_id: own.id, resource: 'phase' })).to.deep.equal([]);
    expectStatus(await own.api.patch(`/jobs/${job.id}`, { code: 'PJ-2' }), 200);
    expect(await db('feed_object_refreshes').where({ organization_id: own.id, resource: 'phase' }).select('via', 'ids')).to.deep.equal([
      { via: 'job', ids: [job.id] },
    ]);
    const answer = await reconcile(own.api, 'phase');
    const read = expectStatus(await own.api.get(`/jobs/${job.id}/phases/${phase.id}`), 200).body;
    expect(read.jobCode).to.equal('PJ-2');
    expect(answer.objects).to.deep.equal([{ id: phase.id, digest: objectDigest(read) }]);
  });

  it('tenancy: another organization’s objects are neither counted nor listed, at any prefix', async () => {
    const other = await newOrg();
    const theirs = await reconcile(other.api, 'vendor');
    expect(theirs.count).to.equal(0);
    expect(theirs.digest).to.equal(EMPTY);
    expect(theirs.buckets.every((b) => b.count === 0 && b.digest === EMPTY)).to.equal(true);
    const drilled = await reconcile(other.api, 'vendor', hexOf(vendorIds[0]).slice(0, 8));
    expect(drilled.count).to.equal(0);
    expect(drilled.objects).to.deep.equal([]);
    expect(decodeCursor(other.id, theirs.asOf)).to.be.a('number');
    expect(decodeCursor(org.id, theirs.asOf)).to.equal(undefined);
  });

  it('objects written without the feed (a bulk load) are digested after the backfill the loader asks for', async () => {
    const own = await newOrg();
    const db = harness().db;
    const [loaded] = await db('vendors').insert({ organization_id: own.id, code: 'BULK-1', name: 'Loaded in bulk' }).returning('id');
    const [gone] = await db('vendors').insert({ organization_id: own.id, code: 'BULK-2', name: 'Loaded, then removed' }).returning('id');
    await requestBackfill(db, own.id, ['vendor']);
    let answer = await reconcile(own.api, 'vendor');
    expect(answer.objects).to.deep.equal(digestsOf(await singleReads(own.api, '/vendors', [loaded.id, gone.id])).objects);
    // Removed and changed behind the feed's back, then backfilled again: the states follow.
    await db('vendors').where({ organization_id: own.id, id: gone.id }).delete();
    await db('vendors').where({ organization_id: own.id, id: loaded.id }).update({ name: 'Loaded and corrected' });
    await requestBackfill(db, own.id, ['vendor']);
    answer = await reconcile(own.api, 'vendor');
    const read = expectStatus(await own.api.get(`/vendors/${loaded.id}`), 200).body;
    expect(read.name).to.equal('Loaded and corrected');
    expect(answer.objects).to.deep.equal([{ id: loaded.id, digest: objectDigest(read) }]);
    // The organization's first user (written by provisioning, without the feed) is digested too.
    const users = await reconcile(own.api, 'user');
    expect(users.objects).to.deep.equal(digestsOf(await singleReads(own.api, '/users', [own.userId])).objects);
  });

  it('the example client (examples/reconcile.ts) finds the ids where a copy in JSON files differs', async () => {
    const own = await newOrg();
    const vendors = expectStatus(
      await own.api.post('/vendors/batch', { inputs: Array.from({ length: 30 }, (_, i) => ({ code: `XV-${i}`, name: `Example vendor ${i}` })) }),
      200,
    ).body as { id: string }[];
    const copy = replayed((await readAll(own.api, undefined)).entries, 'vendor', own.id);
    const dir = mkdtempSync(join(tmpdir(), 'reconcile-copy-'));
    try {
      // Changed at the service, missing from the copy, and only in the copy.
      expectStatus(await own.api.patch(`/vendors/${vendors[3].id}`, { name: 'Changed at the service' }), 200);
      copy.delete(vendors[5].id);
      const stray = { ...(copy.get(vendors[6].id) as object), id: '00000000-0000-4000-8000-000000000001' };
      writeFileSync(join(dir, 'vendors.json'), JSON.stringify([...copy.values()]));
      writeFileSync(join(dir, 'stray.json'), JSON.stringify(stray));
      const found = await reconcileCopy(harness().baseUrl, own.clientId, own.clientSecret, 'vendor', readCopy(dir));
      expect(found.ids).to.deep.equal([vendors[3].id, vendors[5].id, stray.id].sort());
      expect(decodeCursor(own.id, found.asOf)).to.be.a('number');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown resource is a 404 problem; a bad prefix a 400 naming the parameter', async function () {
    onlyDirect(this, 'sends a resource and a prefix the contract forbids');
    for (const resource of ['vendors', 'order_tag', 'webhook_endpoint', 'nothing']) problemOf(await org.api.get(`/reconciliation/${resource}`), 404);
    for (const prefix of ['G', 'ABC', '123456789', 'x1']) {
      const p = problemOf(await org.api.get(`/reconciliation/vendor?prefix=${prefix}`), 400);
      expect(p.errors.map((e) => e.field)).to.include('query.prefix');
    }
    const empty = problemOf(await org.api.get('/reconciliation/vendor?prefix='), 400);
    expect(empty.errors.map((e) => e.field)).to.include('query.prefix');
  });
});
