import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg, PathOf } from './support/client';
import { makeOrder } from './support/purchasing-fixtures';
import { basics, invoice } from './support/billing-fixtures';

/**
 * The keyset `cursor` of the bulk lists (our addition): starting with `cursor=start` and following
 * `meta.nextCursor` visits exactly the rows of the whole list, in the same order, for any allowed
 * order, including nullable fields; the total stays the size of the whole filtered set. Offset
 * paging keeps exactly the spec's meta.
 */
async function follow(org: TestOrg, path: PathOf<'get'>, query: string) {
  const ids: string[] = [];
  const totals = new Set<number>();
  let cursor: string | null = 'start';
  let pages = 0;
  do {
    const url = `${path}?${query}&cursor=${encodeURIComponent(cursor!)}` as const;
    const body = expectStatus(await org.api.get(url), 200).body as {
      meta: { total: number; nextCursor: string | null; offset: number };
      data: { id: string }[];
    };
    ids.push(...body.data.map((d) => d.id));
    totals.add(body.meta.total);
    expect(body.meta.offset).to.equal(0);
    cursor = body.meta.nextCursor;
    pages += 1;
    if (pages > 50) throw new Error('cursor does not end');
  } while (cursor);
  return { ids, totals: [...totals], pages };
}

describe('bulk lists: keyset cursor', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    const day = (d: number | null) => (d === null ? null : new Date(Date.UTC(2026, 10, d)).toISOString());
    // Needed-by dates with ties and nulls, spread over two orders.
    const dates = [3, null, 1, 3, null, 2, 5, 3, null, 1, 4];
    await makeOrder(
      org,
      {},
      dates.slice(0, 6).map((d, i) => ({ line_number: i + 1, description: `Item ${i}`, need_by_date: day(d) })),
    );
    await makeOrder(
      org,
      {},
      dates.slice(6).map((d, i) => ({ line_number: i + 1, description: `Item ${i + 6}`, need_by_date: day(d) })),
    );
  });

  for (const order of [
    '',
    'orderBy=needByDate&direction=ASC',
    'orderBy=needByDate&direction=DESC',
    'orderBy=lineNumber&direction=ASC',
    'orderBy=createdAt&direction=ASC',
  ]) {
    it(`pages GET /items to the end with the cursor (${order || 'default order'})`, async () => {
      const all = expectStatus(await org.api.get(`/items?limit=2500&${order}`), 200).body;
      const walked = await follow(org, '/items', `limit=3&${order}`);
      expect(walked.ids).to.deep.equal(all.data.map((d: { id: string }) => d.id));
      expect(walked.totals).to.deep.equal([11]);
      expect(walked.pages).to.equal(4);
    });
  }

  it('gives nextCursor null on a page that is not full, and a cursor on a full one', async () => {
    expect(expectStatus(await org.api.get('/items?limit=20&cursor=start'), 200).body.meta.nextCursor).to.equal(null);
    expect(expectStatus(await org.api.get('/items?limit=11&cursor=start'), 200).body.meta.nextCursor).to.be.a('string');
  });

  it("answers offset paging with exactly the spec's meta", async () => {
    expect(expectStatus(await org.api.get('/items?limit=11&offset=0'), 200).body.meta).to.deep.equal({ total: 11, limit: 11, offset: 0 });
    expect(expectStatus(await org.api.get('/invoice-items?limit=3'), 200).body.meta).to.have.all.keys('total', 'limit', 'offset');
  });

  it('keeps filters applied along the cursor', async () => {
    const all = expectStatus(await org.api.get('/items?limit=2500&filter[lineNumber_lte]=3'), 200).body;
    const walked = await follow(org, '/items', 'limit=2&filter[lineNumber_lte]=3');
    expect(walked.ids).to.deep.equal(all.data.map((d: { id: string }) => d.id));
    expect(walked.totals).to.deep.equal([all.meta.total]);
  });

  it('rejects a foreign cursor, a cursor for another order, and a cursor with an offset', async () => {
    const cursor = expectStatus(await org.api.get('/items?limit=2&cursor=start'), 200).body.meta.nextCursor as string;
    expect(problemOf(await org.api.get('/items?cursor=not-a-cursor'), 400).errors[0]).to.include({ field: 'query.cursor' });
    expect(problemOf(await org.api.get(`/items?cursor=${cursor}&orderBy=lineNumber`), 400).errors[0].message).to.match(/orderBy=createdAt&direction=DESC/);
    expect(problemOf(await org.api.get(`/items?cursor=${cursor}&offset=2`), 400).errors[0]).to.include({ field: 'query.offset' });
  });

  it('pages GET /invoice-items with the cursor too', async () => {
    const b = await basics(org);
    await invoice(
      org,
      b,
      {},
      Array.from({ length: 5 }, (_, i) => ({ line_number: i + 1, description: `Line ${i}` })),
    );
    const all = expectStatus(await org.api.get('/invoice-items?limit=2500'), 200).body;
    const walked = await follow(org, '/invoice-items', 'limit=2');
    expect(walked.ids).to.deep.equal(all.data.map((d: { id: string }) => d.id));
    expect(walked.ids).to.have.length(5);
  });
});
