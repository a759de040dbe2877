import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { harness } from './support/harness';
import { insertTag } from './support/org-fixtures';
import { itDirect, PRISM } from './support/proxy';

type Tag = { id: string; title: string; type: string; color: string | null; createdAt: string; updatedAt: string };

describe('tags', () => {
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    org = await newOrg();
    other = await newOrg();
    // Distinct creation times, so the default order is certain.
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    await insertTag(org, { title: 'Long lead', type: 'ORDER', color: '#ff7875', createdAt: at(4) });
    await insertTag(org, { title: 'Cycle count', type: 'INVENTORY_ITEM', color: '#69b1ff', createdAt: at(3) });
    await insertTag(org, { title: 'Urgent', type: 'REQUISITION', color: '#ff85c0', createdAt: at(2) });
    await insertTag(org, { title: 'Rental return', type: 'TOOL', color: null, createdAt: at(1) });
    await insertTag(other, { title: 'Foreign', type: 'ORDER', color: '#f0f0f0' });
  });

  it("lists the organization's tags with every field, ordered by createdAt by default", async () => {
    const list = expectStatus(await org.api.get('/tags'), 200).body as Tag[];
    expect(list.map((t) => t.title)).to.deep.equal(['Long lead', 'Cycle count', 'Urgent', 'Rental return']);
    expect(Object.keys(list[0])).to.have.members(['id', 'title', 'type', 'color', 'createdAt', 'updatedAt']);
    expect(list[0]).to.include({ type: 'ORDER', color: '#ff7875' });
    expect(list[3].color).to.equal(null);
    expect(list[0].createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('orders by every allowed field', async () => {
    for (const orderBy of ['id', 'createdAt', 'title', 'color', 'updatedAt', 'type']) {
      expectStatus(await org.api.get(`/tags?orderBy=${orderBy}&direction=DESC`), 200);
    }
    const byTitle = expectStatus(await org.api.get('/tags?orderBy=title'), 200).body as Tag[];
    expect(byTitle.map((t) => t.title)).to.deep.equal(['Cycle count', 'Long lead', 'Rental return', 'Urgent']);
    const byType = expectStatus(await org.api.get('/tags?orderBy=type&direction=DESC'), 200).body as Tag[];
    expect(byType.map((t) => t.type)).to.deep.equal(['TOOL', 'REQUISITION', 'ORDER', 'INVENTORY_ITEM']);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=name'), async () => {
    problemOf(await org.api.get('/tags?orderBy=name'), 400);
  });

  it('filters on the allowed fields', async () => {
    const titles = async (q: string) => (expectStatus(await org.api.get(`/tags?${q}&orderBy=title`), 200).body as Tag[]).map((t) => t.title);
    expect(await titles('filter[type]=TOOL')).to.deep.equal(['Rental return']);
    expect(await titles('filter[color]=%23ff7875')).to.deep.equal(['Long lead']);
    expect(await titles('filter[color_in]=%23ff7875,%2369b1ff')).to.deep.equal(['Cycle count', 'Long lead']);
    expect(await titles('filter[title_starts_with]=ur')).to.deep.equal(['Urgent']);
    expect(await titles('filter[type_not]=ORDER&filter[type_not_in]=TOOL')).to.deep.equal(['Cycle count', 'Urgent']);
    problemOf(await org.api.get('/tags?filter[name]=x'), 400);
  });

  itDirect('rejects a color or type outside the listed values', PRISM.invalidRequest('filter[color]=#000000, filter[type]=INVOICE'), async () => {
    problemOf(await org.api.get('/tags?filter[color]=%23000000'), 400);
    problemOf(await org.api.get('/tags?filter[type]=INVOICE'), 400);
  });

  it('keeps colors to the listed hex codes in storage too', async () => {
    let failed = false;
    await insertTag(org, { title: 'Black', color: '#000000' }).catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(await harness().db('tags').where({ organization_id: org.id, title: 'Black' }).first()).to.equal(undefined);
  });

  it("lists only the caller organization's tags", async () => {
    const theirs = expectStatus(await other.api.get('/tags'), 200).body as Tag[];
    expect(theirs.map((t) => t.title)).to.deep.equal(['Foreign']);
  });
});
