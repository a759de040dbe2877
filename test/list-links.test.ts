import { expect } from 'chai';
import { resolveRef } from './support/contract-refs';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { loadContract } from '../src/http/contract';
import { demoListPath } from './support/demo-paths';
import { loadDemoData } from '../seeds/demo';
import { nextOf } from './support/next-link';

/**
 * Lists say where they go on without changing their bodies: a page that has a next one carries
 * `Link: <next page>; rel="next"`, the last page none.
 */
describe('list pages link the next page (Link rel="next")', function () {
  this.timeout(300_000);
  let org: TestOrg;

  before(async () => {
    org = await newOrg();
  });

  it('offset lists: each full page links the next, the query kept; following the links reads every object once', async () => {
    for (let i = 1; i <= 5; i++) expectStatus(await org.api.post('/vendors', { code: `LINK-${i}`, name: `Vendor ${i}` }), 201);
    expectStatus(await org.api.post('/vendors', { code: 'OTHER-1', name: 'Not matched' }), 201);
    let url: string | undefined = '/vendors?filter[code_starts_with]=LINK-&orderBy=code&limit=2';
    const seen: string[] = [];
    const links: (string | undefined)[] = [];
    while (url) {
      const page = await org.api.unchecked.get(url);
      expect(page.status).to.equal(200);
      // The body is the bare array it always was.
      expect(page.body).to.be.an('array');
      seen.push(...page.body.map((v: { code: string }) => v.code));
      url = nextOf(page.headers.get('link'));
      links.push(url);
    }
    expect(seen).to.deep.equal(['LINK-1', 'LINK-2', 'LINK-3', 'LINK-4', 'LINK-5']);
    expect(links).to.have.length(3);
    expect(links[0]).to.equal('/vendors?filter%5Bcode_starts_with%5D=LINK-&orderBy=code&limit=2&offset=2');
    expect(links[2]).to.equal(undefined);
  });

  it('a page shorter than limit is the last one (no Link); a full last page links an empty one', async () => {
    const short = await org.api.unchecked.get('/vendors?filter[code_starts_with]=LINK-&limit=10');
    expect(short.body).to.have.length(5);
    expect(short.headers.get('link')).to.equal(null);
    const full = await org.api.unchecked.get('/vendors?filter[code_starts_with]=LINK-&limit=5');
    const next = nextOf(full.headers.get('link'));
    expect(next).to.match(/offset=5$/);
    const empty = await org.api.unchecked.get(next!);
    expect(empty.body).to.deep.equal([]);
    expect(empty.headers.get('link')).to.equal(null);
  });

  describe('on the demo organization, every list the contract gives a Link', () => {
    const doc = loadContract() as any;
    const resolve = (o: any): any => resolveRef(doc, o);
    const lists = Object.entries(doc.paths as Record<string, any>)
      .filter(([, item]) => item.get?.responses?.['200']?.headers?.Link)
      .map(([path, item]) => ({ path, cursor: (item.get.parameters as any[]).map(resolve).some((p) => p.name === 'cursor') }));
    let demo: TestOrg;
    const values: Record<string, string> = {};

    before(async () => {
      demo = await newOrg();
      await loadDemoData(harness().db, demo.id);
      const db = harness().db;
      // The object of each kind with the most children, so that nested lists have two pages.
      const most = async (table: string, column: string) =>
        String(
          (
            await db(table).where({ organization_id: demo.id }).whereNotNull(column).groupBy(column).orderByRaw('count(*) DESC').orderBy(column).first(column)
          )?.[column],
        );
      values.job = await most('phases', 'job_id');
      const phase = await db('cost_categories')
        .where({ organization_id: demo.id })
        .whereNotNull('phase_id')
        .groupBy('job_id', 'phase_id')
        .orderByRaw('count(*) DESC')
        .first('job_id', 'phase_id');
      [values.phaseJob, values.phase] = [String(phase?.job_id), String(phase?.phase_id)];
      values.order = await most('items', 'order_id');
      values.bom = await most('bill_of_materials_items', 'bill_of_materials_id');
      values.requisition = await most('requisition_items', 'requisition_id');
      values.warehouseRequest = await most('warehouse_request_items', 'warehouse_request_id');
      values.delivery = await most('delivery_receipt_items', 'delivery_receipt_id');
      values.invoice = await most('invoice_items', 'invoice_id');
    });

    /** A concrete path for a list's template, from the demo organization's objects (undefined: it has none). */
    function concrete(path: string): string | undefined {
      if (path.startsWith('/webhook-endpoints/')) return undefined;
      return demoListPath(path, values);
    }

    it('finds the lists', () => expect(lists.length).to.be.above(30));

    it('a list that holds limit to less (change orders: 10 a page) links the next page of what it sent', async () => {
      const total = Number((await harness().db('change_orders').where({ organization_id: demo.id }).count({ n: '*' }))[0].n);
      expect(total, 'the demo has more than a page of change orders').to.be.above(10);
      const page = expectStatus(await demo.api.get('/changeOrders?limit=50'), 200);
      expect(page.body).to.have.length(10);
      expect(nextOf(page.headers.get('link'))).to.equal('/changeOrders?limit=50&offset=10');
    });

    it('a page of one object links the page after it, which holds the next object', async () => {
      const wrong: string[] = [];
      let linked = 0;
      for (const { path, cursor } of lists) {
        const at = concrete(path);
        if (!at) continue;
        const first = await demo.api.unchecked.get(`${at}?limit=1${cursor ? '&cursor=start' : ''}`);
        if (first.status !== 200) {
          wrong.push(`${path}: ${first.status}`);
          continue;
        }
        const rows = Array.isArray(first.body) ? first.body : first.body.data;
        const next = nextOf(first.headers.get('link'));
        if (rows.length === 0) {
          if (next) wrong.push(`${path}: an empty page links ${next}`);
          continue;
        }
        if (!next) {
          wrong.push(`${path}: a full page without Link`);
          continue;
        }
        linked++;
        const second = await demo.api.unchecked.get(next);
        const more = Array.isArray(second.body) ? second.body : second.body?.data;
        if (second.status !== 200 || !Array.isArray(more)) wrong.push(`${path}: ${next} answered ${second.status}`);
        else if (more.some((o: { id?: string }) => o.id !== undefined && o.id === rows[0].id)) wrong.push(`${path}: ${next} repeats the first page`);
      }
      expect(wrong, wrong.join('\n')).to.deep.equal([]);
      expect(linked).to.be.above(25);
    });
  });

  it('bulk lists: a cursor page links the next cursor, an offset page the next offset while objects remain', async () => {
    const demo = await newOrg();
    await loadDemoData(harness().db, demo.id);
    const first = expectStatus(await demo.api.get('/items?cursor=start&limit=2'), 200);
    expect(first.body.meta.nextCursor).to.be.a('string');
    expect(nextOf(first.headers.get('link'))).to.equal(`/items?cursor=${encodeURIComponent(first.body.meta.nextCursor!)}&limit=2`);
    const total = first.body.meta.total;
    const last = expectStatus(await demo.api.unchecked.get(`/items?limit=2&offset=${total - 2}`), 200);
    expect(last.body.data).to.have.length(2);
    expect(last.headers.get('link'), 'the last page, though full').to.equal(null);
    const before = expectStatus(await demo.api.unchecked.get(`/items?limit=2&offset=${total - 3}`), 200);
    expect(nextOf(before.headers.get('link'))).to.equal(`/items?limit=2&offset=${total - 1}`);
  });
});
