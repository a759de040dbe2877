import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';

describe('tax codes', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    for (const [code, description, taxPercent, taxType] of [
      ['TX-CA', 'California sales tax', 0.0725, 'SALES'],
      ['TX-NV', 'Nevada sales tax', 0.0685, 'SALES'],
      ['TX-USE', 'Use tax', 0.05, 'USE'],
      ['AZ-TPT', 'Arizona privilege tax', 0.056, undefined],
    ] as const) {
      expectStatus(await org.api.post('/tax-codes', { code, description, taxPercent, ...(taxType ? { taxType } : {}) }), 201);
    }
  });

  it('creates a tax code with every field and taxType defaulting to SALES', async () => {
    const res = expectStatus(await org.api.post('/tax-codes', { code: 'TX-NEW', description: 'New', taxPercent: 0.08 }), 201);
    expect(res.body).to.include({ code: 'TX-NEW', description: 'New', taxPercent: 0.08, taxType: 'SALES', deletedAt: null });
    expect(res.body.id).to.be.a('string');
    expect(res.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body.updatedAt).to.equal(res.body.createdAt);
  });

  it('lists ordered by code by default, and by any allowed field in either direction', async () => {
    const list = expectStatus(await org.api.get('/tax-codes'), 200).body as { code: string }[];
    const codes = list.map((t) => t.code);
    expect(codes).to.deep.equal([...codes].sort());
    const desc = expectStatus(await org.api.get('/tax-codes?orderBy=description&direction=DESC'), 200).body as { description: string }[];
    const descriptions = desc.map((t) => t.description);
    expect(descriptions).to.deep.equal([...descriptions].sort().reverse());
  });

  it('pages with limit and offset', async () => {
    const all = expectStatus(await org.api.get('/tax-codes?limit=1000'), 200).body as { id: string }[];
    const page = expectStatus(await org.api.get('/tax-codes?limit=2&offset=1'), 200).body as { id: string }[];
    expect(page.map((t) => t.id)).to.deep.equal(all.slice(1, 3).map((t) => t.id));
  });

  it('filters with every operator family, in both query forms', async () => {
    const codes = async (q: string) => (expectStatus(await org.api.get(`/tax-codes?${q}&orderBy=code`), 200).body as { code: string }[]).map((t) => t.code);
    expect(await codes('filter[code]=TX-CA')).to.deep.equal(['TX-CA']);
    expect(await codes('filter.code=TX-CA')).to.deep.equal(['TX-CA']);
    expect(await codes('filter[taxType]=USE')).to.deep.equal(['TX-USE']);
    expect(await codes('filter[taxType_not]=SALES')).to.deep.equal(['TX-USE']);
    expect(await codes('filter[code_in][]=TX-CA&filter[code_in][]=TX-NV')).to.deep.equal(['TX-CA', 'TX-NV']);
    expect(await codes('filter[code_in]=TX-CA,TX-NV')).to.deep.equal(['TX-CA', 'TX-NV']);
    expect(await codes('filter.code_in=TX-NV')).to.deep.equal(['TX-NV']);
    expect(await codes('filter[code_not_in][]=TX-CA&filter[code_starts_with]=TX-'))
      .to.include.members(['TX-NV', 'TX-USE'])
      .and.not.include('TX-CA');
    expect(await codes('filter[code_starts_with]=tx-u')).to.deep.equal(['TX-USE']);
    expect(await codes('filter[code_ends_with]=-TPT')).to.deep.equal(['AZ-TPT']);
    expect(await codes('filter[description_contains]=PRIVILEGE')).to.deep.equal(['AZ-TPT']);
    expect(await codes('filter[code_gt]=TX-CA&filter[code_lte]=TX-USE&filter[code_in]=AZ-TPT,TX-CA,TX-NV,TX-USE')).to.deep.equal(['TX-NV', 'TX-USE']);
    expect(await codes('filter[code_gte]=TX-CA&filter[code_lt]=TX-NV&filter[code_in]=AZ-TPT,TX-CA,TX-NV')).to.deep.equal(['TX-CA']);
    expect(await codes('filter[code_contains]=%')).to.deep.equal([]);
  });

  it('filters timestamps for polling with updatedAt_gt', async () => {
    const before = expectStatus(await org.api.get('/tax-codes?orderBy=updatedAt&direction=DESC&limit=1'), 200).body[0];
    await new Promise((r) => setTimeout(r, 5));
    expectStatus(await org.api.patch('/tax-codes/TX-NV', { description: 'Nevada state sales tax' }), 200);
    const changed = expectStatus(await org.api.get(`/tax-codes?filter[updatedAt_gt]=${encodeURIComponent(before.updatedAt)}`), 200).body as { code: string }[];
    expect(changed.map((t) => t.code)).to.deep.equal(['TX-NV']);
  });

  it('treats an id filter that is not an ID as matching nothing', async () => {
    expect(expectStatus(await org.api.get('/tax-codes?filter[id]=not-an-id'), 200).body).to.deep.equal([]);
  });

  it('reads by id or by code', async () => {
    const byCode = expectStatus(await org.api.get('/tax-codes/TX-CA'), 200).body;
    const byId = expectStatus(await org.api.get(`/tax-codes/${byCode.id}`), 200).body;
    expect(byId).to.deep.equal(byCode);
  });

  it('updates given fields only and renames with a new code', async () => {
    const created = expectStatus(await org.api.post('/tax-codes', { code: 'TX-RN', description: 'Rename me', taxPercent: 0.01, taxType: 'USE' }), 201).body;
    const res = expectStatus(await org.api.patch(`/tax-codes/${created.id}`, { code: 'TX-RENAMED', taxPercent: 0.02 }), 200).body;
    expect(res).to.include({ id: created.id, code: 'TX-RENAMED', description: 'Rename me', taxPercent: 0.02, taxType: 'USE' });
    expect(res.updatedAt >= created.updatedAt).to.equal(true);
    problemOf(await org.api.get('/tax-codes/TX-RN'), 404);
  });

  it('rejects a duplicate code with 409 naming the field', async () => {
    const p = problemOf(await org.api.post('/tax-codes', { code: 'TX-CA', description: 'dup', taxPercent: 0.1 }), 409);
    expect(p.errors[0]).to.include({ field: 'body.code', rule: 'unique' });
    problemOf(await org.api.patch('/tax-codes/TX-NV', { code: 'TX-CA' }), 409);
  });

  itDirect(
    'validates input and names every failing field',
    PRISM.invalidRequest('an empty code, taxPercent 1.5, an unlisted taxType and color, no description, an empty PATCH body'),
    async () => {
      const p = problemOf(await org.api.unchecked.post('/tax-codes', { code: '', taxPercent: 1.5, taxType: 'VAT', color: 'x' }), 400);
      const fields = p.errors.map((e) => e.field);
      expect(fields).to.include.members(['body.code', 'body.taxPercent', 'body.taxType', 'body.color', 'body.description']);
      problemOf(await org.api.patch('/tax-codes/TX-CA', {}), 400);
    },
  );

  it('soft-deletes: returns deletedAt, hides it, and frees the code', async () => {
    const created = expectStatus(await org.api.post('/tax-codes', { code: 'TX-DEL', description: 'Delete me', taxPercent: 0.03 }), 201).body;
    const deleted = expectStatus(await org.api.delete('/tax-codes/TX-DEL'), 200).body;
    expect(deleted.id).to.equal(created.id);
    expect(deleted.deletedAt).to.match(/Z$/);
    problemOf(await org.api.get(`/tax-codes/${created.id}`), 404);
    problemOf(await org.api.delete(`/tax-codes/${created.id}`), 404);
    const list = expectStatus(await org.api.get('/tax-codes?filter[code]=TX-DEL'), 200).body;
    expect(list).to.deep.equal([]);
    expectStatus(await org.api.post('/tax-codes', { code: 'TX-DEL', description: 'Again', taxPercent: 0.03 }), 201);
  });

  it('answers 404 for unknown ids and codes', async () => {
    problemOf(await org.api.get('/tax-codes/NOPE'), 404);
    problemOf(await org.api.patch('/tax-codes/7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42', { description: 'x' }), 404);
  });
});
