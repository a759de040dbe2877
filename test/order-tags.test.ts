import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg, type RequestBody } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { insertTag, makeOrder, softDeleteOrder } from './support/purchasing-fixtures';
import { setIntegrationState } from '../src/resources/orders/store';
import { itDirect, PRISM } from './support/proxy';

describe('order tags', () => {
  let org: TestOrg;
  let other: TestOrg;
  let order: string;
  let longLead: string;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    order = await makeOrder(org);
    longLead = await insertTag(org.id, 'Long lead', { color: '#ffc069' });
    await insertTag(org.id, 'Warehouse stock', { type: 'INVENTORY_ITEM' });
  });

  it('adds an existing tag by id, one by exact title, and creates a new ORDER tag for a new title', async () => {
    const added = expectStatus(
      await org.api.post(`/order/${order}/tags`, [{ id: longLead, title: 'ignored' }, { title: 'Owner furnished', color: '#69b1ff' }, { title: 'long lead' }]),
      200,
    ).body as any[];
    expect(added.map((t) => t.title)).to.deep.equal(['Long lead', 'Owner furnished', 'long lead']);
    expect(added[0]).to.include({ id: longLead, color: '#ffc069', type: 'ORDER' });
    expect(added[1]).to.include({ type: 'ORDER', color: '#69b1ff' });
    // Titles match case-sensitively: 'long lead' is a new tag without a color.
    expect(added[2]).to.include({ type: 'ORDER', color: null });
    expect(added[2].id).to.not.equal(longLead);
    const onOrder = expectStatus(await org.api.get(`/order/${order}/tags`), 200).body as any[];
    expect(onOrder.map((t) => t.id)).to.have.members(added.map((t) => t.id));
    expect(await harness().db('tags').where({ organization_id: org.id, title: 'Long lead' }).count({ n: '*' })).to.deep.equal([{ n: 1 }]);
  });

  it('takes a tag another request created meanwhile as found, never failing on its title (keeps its color unless one is given)', async () => {
    const db = harness().db;
    for (const [title, color, expected] of [
      ['Raced plain', undefined, '#ff7875'],
      ['Raced colored', '#95de64', '#95de64'],
    ] as const) {
      const o = await makeOrder(org);
      // Another request's transaction creates the title and has not committed: this request does
      // not see it, and its insert of the title waits on it.
      const other = await db.transaction();
      try {
        const [{ id }] = await other('tags').insert({ organization_id: org.id, title, type: 'ORDER', color: '#ff7875' }).returning('id');
        const pending = org.api.post(`/order/${o}/tags`, [{ title, ...(color ? { color } : {}) }]);
        let waiting = false;
        for (let i = 0; i < 200 && !waiting; i++) {
          const rows = await db('pg_stat_activity').where({ wait_event_type: 'Lock' }).whereILike('query', '%INSERT INTO tags%').select('pid');
          waiting = rows.length > 0;
          if (!waiting) await new Promise((r) => setTimeout(r, 25));
        }
        expect(waiting, 'the request waits on the uncommitted title').to.equal(true);
        await other.commit();
        const [tag] = expectStatus(await pending, 200).body;
        expect(tag).to.include({ id, title, color: expected });
      } finally {
        if (!other.isCompleted()) await other.rollback();
      }
      expect(await harness().db('tags').where({ organization_id: org.id, title }).count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    }
  });

  it('matches an existing tag by title and updates its color only when a different one is given', async () => {
    const id = await insertTag(org.id, 'Fragile', { color: '#ff7875' });
    const o = await makeOrder(org);
    const [same] = expectStatus(await org.api.post(`/order/${o}/tags`, [{ title: 'Fragile' }]), 200).body;
    expect(same).to.include({ id, color: '#ff7875' });
    const [changed] = expectStatus(await org.api.post(`/order/${o}/tags`, [{ title: 'Fragile', color: '#95de64' }]), 200).body;
    expect(changed).to.include({ id, color: '#95de64' });
    expect(changed.updatedAt >= same.updatedAt).to.equal(true);
    const [byId] = expectStatus(await org.api.post(`/order/${o}/tags`, [{ id, title: 'Fragile', color: '#95de64' }]), 200).body;
    expect(byId.updatedAt).to.equal(changed.updatedAt);
    const list = expectStatus(await org.api.get(`/order/${o}/tags`), 200).body as any[];
    expect(list.map((t) => t.id)).to.deep.equal([id]);
  });

  it('writes any number of tags with a bounded number of statements; when inputs repeat a tag, the last color wins', async () => {
    const o = await makeOrder(org);
    const known = await Promise.all([0, 1, 2].map((n) => insertTag(org.id, `Known ${n}`, { color: '#ff7875' })));
    const inputs: RequestBody<'post', '/order/o/tags'> = [
      ...Array.from({ length: 300 }, (_, n) => ({ title: `Bulk ${String(n).padStart(3, '0')}` })),
      { title: 'Twice', color: '#69b1ff' },
      { title: 'Twice', color: '#95de64' },
      { id: known[0], title: 'ignored', color: '#b37feb' },
      { title: 'Known 1', color: '#b37feb' },
      { title: 'Known 1', color: '#ff7875' }, // back to its stored color: no change
      { title: 'Known 2', color: '#f0f0f0' },
    ];
    const db = harness().db;
    let statements = 0;
    const count = () => statements++;
    db.on('query', count);
    let added: any[];
    try {
      added = expectStatus(await org.api.post(`/order/${o}/tags`, inputs), 200).body as any[];
    } finally {
      db.removeListener('query', count);
    }
    // Authentication, the order, the lookup, one insert, one update, the attachments, the reply, the
    // feed and the transaction's own statements: never one per tag.
    expect(statements).to.be.at.most(16);
    expect(added).to.have.length(300 + 1 + 3);
    expect(added.slice(0, 3).map((t) => t.title)).to.deep.equal(['Bulk 000', 'Bulk 001', 'Bulk 002']);
    expect(added.slice(300).map((t) => [t.title, t.color])).to.deep.equal([
      ['Twice', '#95de64'],
      ['Known 0', '#b37feb'],
      ['Known 1', '#ff7875'],
      ['Known 2', '#f0f0f0'],
    ]);
    expect(added[301].id).to.equal(known[0]);
    const onOrder = expectStatus(await org.api.get(`/order/${o}/tags?limit=1000`), 200).body as any[];
    expect(onOrder).to.have.length(304);
    const stored = await db('tags').where({ organization_id: org.id }).whereIn('id', known).orderBy('title').select('color', 'updated_at', 'created_at');
    expect(stored.map((t) => t.color)).to.deep.equal(['#b37feb', '#ff7875', '#f0f0f0']);
    // Known 1 ended as it was: not written.
    expect(stored[1].updated_at.getTime()).to.equal(stored[1].created_at.getTime());
  });

  it('lists with the tag orderBy and filters', async () => {
    const o = await makeOrder(org);
    expectStatus(await org.api.post(`/order/${o}/tags`, [{ title: 'Zeta', color: '#f0f0f0' }, { title: 'Alpha' }, { title: 'Mid', color: '#b37feb' }]), 200);
    const titles = async (q: string) => (expectStatus(await org.api.get(`/order/${o}/tags?${q}`), 200).body as any[]).map((t) => t.title);
    expect(await titles('orderBy=title')).to.deep.equal(['Alpha', 'Mid', 'Zeta']);
    expect(await titles('orderBy=title&direction=DESC&limit=1')).to.deep.equal(['Zeta']);
    expect(await titles('filter[color]=%23b37feb')).to.deep.equal(['Mid']);
    expect(await titles('filter[title_starts_with]=al')).to.deep.equal(['Alpha']);
    expect(await titles('filter[type]=ORDER&orderBy=title')).to.deep.equal(['Alpha', 'Mid', 'Zeta']);
    problemOf(await org.api.get(`/order/${o}/tags?filter[name]=x`), 400);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=name'), async () => {
    problemOf(await org.api.get(`/order/${MISSING_ID}/tags?orderBy=name`), 400);
  });

  it('removes a tag from the order, keeps the tag, and returns true', async () => {
    const o = await makeOrder(org);
    const [tag] = expectStatus(await org.api.post(`/order/${o}/tags`, [{ title: 'Remove me' }]), 200).body;
    const res = expectStatus(await org.api.delete(`/order/${o}/tags/${tag.id}`), 200);
    expect(res.body).to.equal(true);
    expect(expectStatus(await org.api.get(`/order/${o}/tags`), 200).body).to.deep.equal([]);
    expect(await harness().db('tags').where({ id: tag.id }).first('title')).to.deep.equal({ title: 'Remove me' });
    problemOf(await org.api.delete(`/order/${o}/tags/${tag.id}`), 404);
    problemOf(await org.api.delete(`/order/${o}/tags/${MISSING_ID}`), 404);
  });

  it('does not touch the order (its updatedAt and integration state)', async () => {
    const o = await makeOrder(org);
    await setIntegrationState(harness().db, org.id, o, 'LINKED', null);
    const before = expectStatus(await org.api.get(`/orders/${o}`), 200).body;
    expectStatus(await org.api.post(`/order/${o}/tags`, [{ title: 'Rush' }]), 200);
    const after = expectStatus(await org.api.get(`/orders/${o}`), 200).body;
    expect(after).to.include({ integrationState: 'LINKED', updatedAt: before.updatedAt });
  });

  it('404s an unknown tag id without adding anything, and validates the body', async () => {
    const o = await makeOrder(org);
    const p = problemOf(await org.api.post(`/order/${o}/tags`, [{ title: 'Would be new' }, { id: MISSING_ID, title: 'x' }]), 404);
    expect(p.errors[0].message).to.match(/body\[1\]\.id/);
    expect(await harness().db('tags').where({ organization_id: org.id, title: 'Would be new' }).first()).to.equal(undefined);
    problemOf(await org.api.unchecked.post(`/order/${o}/tags`, [{ title: 'Bad color', color: '#123456' }]), 400);
    problemOf(await org.api.unchecked.post(`/order/${o}/tags`, [{ color: '#f0f0f0' }]), 400);
    problemOf(await org.api.unchecked.post(`/order/${o}/tags`, { title: 'not an array' }), 400);
    expect(expectStatus(await org.api.post(`/order/${o}/tags`, []), 200).body).to.deep.equal([]);
  });

  it("404s a deleted order, and answers another organization's order or tag like a missing one", async () => {
    const gone = await makeOrder(org);
    await softDeleteOrder(org.id, gone);
    problemOf(await org.api.get(`/order/${gone}/tags`), 404);
    problemOf(await org.api.post(`/order/${gone}/tags`, [{ title: 'x' }]), 404);
    await expectForeignLikeMissing(other, 'GET', `/order/${order}/tags`, `/order/${MISSING_ID}/tags`);
    await expectForeignLikeMissing(other, 'POST', `/order/${order}/tags`, `/order/${MISSING_ID}/tags`, [{ title: 'Intruder' }]);
    await expectForeignLikeMissing(other, 'DELETE', `/order/${order}/tags/${longLead}`, `/order/${MISSING_ID}/tags/${MISSING_ID}`);
    // The intruder's own order with a foreign tag id: like a missing tag.
    const own = await makeOrder(other);
    await expectForeignLikeMissing(other, 'DELETE', `/order/${own}/tags/${longLead}`, `/order/${own}/tags/${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'POST', `/order/${own}/tags`, `/order/${own}/tags`, [{ id: MISSING_ID, title: 'x' }]);
    const p = problemOf(await other.api.post(`/order/${own}/tags`, [{ id: longLead, title: 'Long lead' }]), 404);
    expect(p.errors[0].message).to.match(/body\[0\]\.id/);
  });
});
