import { expect } from 'chai';
import { createClient, paginate, type ProcurementClient } from '../client/src/index.mjs';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { headCursor } from './support/feed';
import { makeOrder } from './support/purchasing-fixtures';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * paginate() (client/src/paginate.mts) over each kind of paging, more than three pages each, and the
 * guide's filter forms through the typed client (openapi-fetch alone throws on a list in `filter`).
 */
describe('client kit: paginate and filters', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let client: ProcurementClient;
  const codes = Array.from({ length: 9 }, (_, i) => `V-P${i}`);

  before(async () => {
    org = await newOrg();
    client = createClient({ baseUrl: harness().baseUrl, apiKey: org.apiKey });
  });

  it('an offset list: exactly its N objects over more than three pages', async () => {
    const start = await headCursor(org.api);
    expectStatus(await org.api.post('/vendors/batch', { inputs: codes.map((code) => ({ code, name: `Vendor ${code}` })) }), 200);
    const all = await collect(paginate(client, '/vendors', { query: { limit: 2, orderBy: 'code' } }));
    expect(all.map((v) => v.code)).to.deep.equal(codes);
    // The same objects as one page of the whole list.
    expect(all).to.deep.equal(expectStatus(await org.api.get('/vendors?limit=1000&orderBy=code'), 200).body);

    // The feed, by `after`, from the head taken before: the nine creations, in order.
    const entries = await collect(paginate(client, '/changes', { query: { after: start, limit: 2 } }));
    expect(entries.map((e) => `${e.type} ${e.data.code}`)).to.deep.equal(codes.map((c) => `vendor.created ${c}`));
    expect(new Set(entries.map((e) => e.cursor)).size).to.equal(codes.length);
  });

  it('a keyset list (GET /items by cursor): exactly its N objects over more than three pages, and by offset when asked', async () => {
    const other = await newOrg();
    await makeOrder(
      other,
      {},
      Array.from({ length: 7 }, (_, i) => ({ line_number: i + 1, description: `Item ${i}` })),
    );
    const kit = createClient({ baseUrl: harness().baseUrl, apiKey: other.apiKey });
    const pages: string[] = [];
    const observed = createClient({
      baseUrl: harness().baseUrl,
      apiKey: other.apiKey,
      fetch: (input, init) => {
        pages.push(new URL((input as Request).url).searchParams.get('cursor') ?? 'offset');
        return fetch(input, init);
      },
    });
    const all = expectStatus(await other.api.get('/items?limit=2500'), 200).body.data;
    expect(all).to.have.length(7);
    const byCursor = await collect(paginate(observed, '/items', { query: { limit: 2 } }));
    expect(byCursor).to.deep.equal(all);
    expect(pages[0]).to.equal('start');
    expect(pages).to.have.length(4);
    const byOffset = await collect(paginate(kit, '/items', { query: { limit: 2, offset: 0 } }));
    expect(byOffset).to.deep.equal(all);
  });

  it('every filter form of the guide, as typed: a list (filter[code_in][]=...), equality, text and comparison operators', async () => {
    const inList = await client.GET('/vendors', { params: { query: { orderBy: 'code', filter: { code_in: ['V-P1', 'V-P3'] } } } });
    expect(inList.data?.map((v) => v.code)).to.deep.equal(['V-P1', 'V-P3']);
    const notIn = await collect(paginate(client, '/vendors', { query: { limit: 3, orderBy: 'code', filter: { code_not_in: ['V-P0', 'V-P8'] } } }));
    expect(notIn.map((v) => v.code)).to.deep.equal(codes.slice(1, 8));
    const one = await client.GET('/vendors', { params: { query: { filter: { code: 'V-P4' } } } });
    expect(one.data?.map((v) => v.code)).to.deep.equal(['V-P4']);
    const starts = await client.GET('/vendors', { params: { query: { filter: { name_starts_with: 'vendor v-p2' } } } });
    expect(starts.data?.map((v) => v.code)).to.deep.equal(['V-P2']);
    const later = await client.GET('/vendors', { params: { query: { filter: { code_gt: 'V-P6' }, orderBy: 'code', direction: 'DESC' } } });
    expect(later.data?.map((v) => v.code)).to.deep.equal(['V-P8', 'V-P7']);
    // An unknown operator is the service's 400, naming it: the kit sends what it is given.
    const bad = await client.GET('/vendors', { params: { query: { filter: { code_nope: 'x' } as never } } });
    expect(bad.response.status).to.equal(400);
  });
});
