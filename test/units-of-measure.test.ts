import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';

describe('units of measure', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    for (const [code, description, multiplier] of [
      ['EA', 'Each', 'E'],
      ['C', 'Per hundred', 'C'],
      ['M', 'Per thousand', 'M'],
      ['BOX', 'Box', undefined],
    ] as const) {
      expectStatus(await org.api.post('/units-of-measure', { code, description, ...(multiplier ? { multiplier } : {}) }), 201);
    }
  });

  it('creates with multiplier defaulting to E', async () => {
    const res = expectStatus(await org.api.post('/units-of-measure', { code: 'LF', description: 'Linear foot' }), 201).body;
    expect(res).to.include({ code: 'LF', description: 'Linear foot', multiplier: 'E' });
    expect(Object.keys(res)).to.have.members(['id', 'code', 'description', 'multiplier', 'createdAt', 'updatedAt']);
  });

  it('lists ordered by code by default and filters on the allowed fields', async () => {
    const list = expectStatus(await org.api.get('/units-of-measure'), 200).body as { code: string }[];
    const codes = list.map((u) => u.code);
    expect(codes).to.deep.equal([...codes].sort());
    const perX = expectStatus(await org.api.get('/units-of-measure?filter[description_starts_with]=per&orderBy=description'), 200).body;
    expect(perX.map((u: { code: string }) => u.code)).to.deep.equal(['C', 'M']);
  });

  it('does not filter on multiplier (not an allowed filter field)', async () => {
    const p = problemOf(await org.api.get('/units-of-measure?filter[multiplier]=M'), 400);
    expect(p.errors[0].field).to.equal('query.filter.multiplier');
  });

  it('reads by code or id and updates', async () => {
    const m = expectStatus(await org.api.get('/units-of-measure/M'), 200).body;
    expect(expectStatus(await org.api.get(`/units-of-measure/${m.id}`), 200).body).to.deep.equal(m);
    const updated = expectStatus(await org.api.patch('/units-of-measure/BOX', { description: 'Box of 50', multiplier: 'C' }), 200).body;
    expect(updated).to.include({ code: 'BOX', description: 'Box of 50', multiplier: 'C' });
  });

  it('rejects a duplicate code', async () => {
    problemOf(await org.api.post('/units-of-measure', { code: 'EA', description: 'dup' }), 409);
  });

  itDirect('rejects an unknown multiplier', PRISM.invalidRequest('multiplier: "K"'), async () => {
    const p = problemOf(await org.api.unchecked.post('/units-of-measure', { code: 'X', description: 'x', multiplier: 'K' }), 400);
    expect(p.errors[0]).to.include({ field: 'body.multiplier', rule: 'enum' });
  });

  itDirect('has no delete operation', PRISM.outsideContract('DELETE /units-of-measure/{code}'), async () => {
    const res = await org.api.unchecked.delete('/units-of-measure/EA');
    expect(problemOf(res, 405).errors[0].message).to.match(/DELETE/);
    expect(res.headers.get('allow')).to.equal('GET, PATCH');
  });

  it('answers 404 for an unknown code', async () => {
    problemOf(await org.api.get('/units-of-measure/NOPE'), 404);
  });
});
