import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { harness } from './support/harness';
import { Client, expectStatus } from './support/client';
import { ROOT } from '../src/paths';

const CLI = join(ROOT, 'dist', 'src', 'admin', 'cli.js');

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: harness().databaseUrl } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as unknown as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

interface Entry {
  type: string;
  resource: string;
  id: string;
  origin: { credentialType: string; credentialId: string | null };
  data: Record<string, unknown>;
}

/** Every entry of the organization's feed after `after` (from the oldest when undefined), page by page. */
async function feed(api: Client, after?: string): Promise<{ entries: Entry[]; cursor: string }> {
  const entries: Entry[] = [];
  let cursor = after;
  for (;;) {
    const page = expectStatus(await api.get(`/changes?limit=1000${cursor ? `&after=${cursor}` : ''}`), 200).body;
    entries.push(...page.data);
    cursor = page.nextCursor;
    if (!page.hasMore) return { entries, cursor: cursor! };
  }
}

const createdOf = (entries: Entry[], resource: string) => entries.filter((e) => e.type === `${resource}.created`);

describe('admin CLI writes reach the feed', function () {
  this.timeout(180_000);

  it('org create, demo-data and vendor link append entries (origin system) holding each object as its read returns it', async () => {
    const created = await admin('org', 'create', '--name', 'Feedwell Builders', '--admin-email', 'mara.feed@feedwell.example');
    expect(created.code, created.stderr).to.equal(0);
    const org = JSON.parse(created.stdout);
    const api = new Client(org.apiKey);

    const first = await feed(api);
    expect(first.entries.map((e) => `${e.type} ${e.id}`)).to.deep.equal([`user.created ${org.user.id}`]);
    expect(first.entries[0].data).to.deep.equal(expectStatus(await api.get(`/users/${org.user.id}`), 200).body);

    const demo = await admin('demo-data', '--org', org.organization.id);
    expect(demo.code, demo.stderr).to.equal(0);
    const { entries, cursor } = await feed(api, first.cursor);
    for (const e of entries) {
      expect(e.origin.credentialType, e.type).to.equal('system');
      expect(e.origin.credentialId, e.type).to.equal(null);
    }

    // Every object of these lists has its created entry, and the entry holds the object's single read.
    for (const [resource, list, single] of [
      ['tax_code', '/tax-codes', '/tax-codes'],
      ['vendor', '/vendors', '/vendors'],
      ['job', '/jobs', '/jobs'],
      ['order', '/orders', '/orders'],
    ] as const) {
      const listed = expectStatus(await api.get(`${list}?limit=1000`), 200).body as { id: string }[];
      const byId = new Map(createdOf(entries, resource).map((e) => [e.id, e]));
      expect(listed.length, resource).to.be.greaterThan(0);
      expect([...byId.keys()].sort(), resource).to.deep.equal(listed.map((o) => o.id).sort());
      for (const { id } of listed.slice(0, 25)) {
        expect(byId.get(id)!.data, `${resource} ${id}`).to.deep.equal(expectStatus(await api.get(`${single}/${id}`), 200).body);
      }
    }
    // The objects' states (reconciliation) came with the entries: no backfill owed for these resources.
    const db = harness().db;
    for (const resource of ['vendor', 'job', 'order', 'item']) {
      const states: { id: string; data: unknown }[] = await db('feed_objects').where({ organization_id: org.organization.id, resource }).select('id', 'data');
      expect(new Map(states.map((s) => [s.id, s.data])), resource).to.deep.equal(new Map(createdOf(entries, resource).map((e) => [e.id, e.data])));
    }
    const owed: string[] = await db('feed_object_backfills').where({ organization_id: org.organization.id }).pluck('resource');
    for (const resource of ['*', 'vendor', 'job', 'order', 'item', 'user']) expect(owed).to.not.include(resource);

    const items = createdOf(entries, 'item');
    expect(items.length).to.be.greaterThan(0);
    for (const e of items.slice(0, 25)) expect(e.data, `item ${e.id}`).to.deep.equal(expectStatus(await api.get(`/items/${e.id}`), 200).body);

    const seller = JSON.parse((await admin('org', 'create', '--name', 'Feedwell Supply', '--admin-email', 'sam.supply@feedwell.example')).stdout);
    const vendor = createdOf(entries, 'vendor')[0].data as { id: string; code: string };
    const linked = await admin('vendor', 'link', '--org', org.organization.id, '--vendor', vendor.code, '--seller-org', seller.organization.id);
    expect(linked.code, linked.stderr).to.equal(0);
    const after = (await feed(api, cursor)).entries;
    expect(after.map((e) => `${e.type} ${e.id}`)).to.deep.equal([`vendor.updated ${vendor.id}`]);
    expect(after[0].origin.credentialType).to.equal('system');
    expect(after[0].data).to.deep.equal(expectStatus(await api.get(`/vendors/${vendor.id}`), 200).body);
  });
});
