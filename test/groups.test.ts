import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';

describe('groups', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    for (const [name, code] of [
      ['Northern California projects', 'NORCAL'],
      ['Southern California projects', 'SOCAL'],
      ['Healthcare', undefined],
    ] as const) {
      expectStatus(await org.api.post('/groups', { name, ...(code ? { code } : {}) }), 201);
    }
  });

  it('creates with code optional and createdById the caller', async () => {
    const g = expectStatus(await org.api.post('/groups', { name: 'Schools' }), 201).body;
    expect(g).to.include({ name: 'Schools', code: null, deletedAt: null, createdById: org.userId });
  });

  itDirect('requires a name', PRISM.invalidRequest('a group without name'), async () => {
    expect(problemOf(await org.api.unchecked.post('/groups', { code: 'NONAME' }), 400).errors.map((e) => e.field)).to.include('body.name');
  });

  it('keeps codes unique in the organization (409)', async () => {
    expect(problemOf(await org.api.post('/groups', { name: 'Dup', code: 'NORCAL' }), 409).errors[0]).to.include({ field: 'body.code', rule: 'unique' });
    const socal = (expectStatus(await org.api.get('/groups?filter[code]=SOCAL'), 200).body as any[])[0];
    problemOf(await org.api.patch(`/groups/${socal.id}`, { code: 'NORCAL' }), 409);
  });

  it('lists ordered by id by default; orders and filters on the allowed fields', async () => {
    const ids = (expectStatus(await org.api.get('/groups'), 200).body as any[]).map((g) => g.id);
    expect(ids).to.deep.equal([...ids].sort());
    const names = (expectStatus(await org.api.get('/groups?orderBy=name&direction=DESC'), 200).body as any[]).map((g) => g.name);
    expect(names).to.deep.equal([...names].sort().reverse());
    expect((expectStatus(await org.api.get('/groups?filter[name_contains]=california&orderBy=code'), 200).body as any[]).map((g) => g.code)).to.deep.equal([
      'NORCAL',
      'SOCAL',
    ]);
    problemOf(await org.api.get('/groups?filter[createdById]=x'), 400);
  });

  it('reads and updates by id', async () => {
    const g = expectStatus(await org.api.post('/groups', { name: 'Retail', code: 'RETAIL' }), 201).body;
    expect(expectStatus(await org.api.get(`/groups/${g.id}`), 200).body).to.deep.equal(g);
    const u = expectStatus(await org.api.patch(`/groups/${g.id}`, { name: 'Retail and hospitality', code: 'RET-HOSP' }), 200).body;
    expect(u).to.include({ id: g.id, name: 'Retail and hospitality', code: 'RET-HOSP' });
    problemOf(await org.api.get('/groups/RETAIL'), 404);
  });

  itDirect('rejects an empty update', PRISM.invalidRequest('an empty PATCH body'), async () => {
    const g = expectStatus(await org.api.post('/groups', { name: 'Healthcare' }), 201).body;
    problemOf(await org.api.patch(`/groups/${g.id}`, {}), 400);
  });

  it('answers another organization’s group like a missing one', async () => {
    const intruder = await newOrg();
    const g = expectStatus(await org.api.post('/groups', { name: 'Private' }), 201).body;
    await expectForeignLikeMissing(intruder, 'GET', `/groups/${g.id}`, `/groups/${MISSING_ID}`);
    await expectForeignLikeMissing(intruder, 'PATCH', `/groups/${g.id}`, `/groups/${MISSING_ID}`, { name: 'stolen' });
  });
});
