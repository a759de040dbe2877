import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';

describe('jobs', () => {
  let org: TestOrg;
  let other: TestOrg;
  let taxCodeId: string;
  let groupA: any;
  let groupB: any;
  let siteId: string;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    taxCodeId = expectStatus(await org.api.post('/tax-codes', { code: 'TX-CA', description: 'California sales tax', taxPercent: 0.0725 }), 201).body.id;
    groupA = expectStatus(await org.api.post('/groups', { name: 'Northern California projects', code: 'NORCAL' }), 201).body;
    groupB = expectStatus(await org.api.post('/groups', { name: 'Healthcare', code: 'HEALTH' }), 201).body;
    siteId = expectStatus(await org.api.post('/locations', { name: 'Folsom yard', type: 'Warehouse' }), 201).body.id;
    for (const [code, name, state, startDate] of [
      ['J-1001', 'Alder Creek Apartments', 'OPEN', '2026-03-01T00:00:00.000Z'],
      ['J-1002', 'Bayview Fire Station', 'CLOSED', '2025-01-15T00:00:00.000Z'],
      ['J-1003', 'Cedar Ridge Library', 'OPEN', null],
    ] as const) {
      expectStatus(await org.api.post('/jobs', { code, name, state, startDate }), 201);
    }
  });

  it('creates a job with defaults: OPEN, no default location or tax code, no groups', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'J-2000', name: 'Delta Warehouse Retrofit' }), 201).body;
    expect(job).to.include({
      code: 'J-2000',
      name: 'Delta Warehouse Retrofit',
      state: 'OPEN',
      defaultLocationId: null,
      defaultTaxCodeId: null,
      startDate: null,
    });
    expect(job.groups).to.deep.equal([]);
    expect(job.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('creates a job with an existing default location, tax code and groups (full Group objects)', async () => {
    const job = expectStatus(
      await org.api.post('/jobs', {
        code: 'J-2001',
        name: 'Elm Street Clinic',
        defaultLocationId: siteId,
        defaultTaxCodeId: taxCodeId,
        groupIds: [groupA.id, groupB.id],
        state: 'CLOSED',
        startDate: '2026-02-01T00:00:00.000Z',
      }),
      201,
    ).body;
    expect(job).to.include({ defaultLocationId: siteId, defaultTaxCodeId: taxCodeId, state: 'CLOSED', startDate: '2026-02-01T00:00:00.000Z' });
    expect(job.groups.map((g: any) => g.id).sort()).to.deep.equal([groupA.id, groupB.id].sort());
    expect(job.groups.find((g: any) => g.id === groupA.id)).to.deep.equal(groupA);
    const locations = expectStatus(await org.api.get('/jobs/J-2001/locations'), 200).body;
    expect(locations.map((l: any) => l.id)).to.deep.equal([siteId]);
  });

  it('creates an inline default location (type Jobsite by default), attaches it and makes it the default', async () => {
    const job = expectStatus(
      await org.api.post('/jobs', {
        code: 'J-2002',
        name: 'Riverside Medical Office Building',
        defaultLocation: {
          name: 'Riverside MOB jobsite',
          addressLine1: '4100 Riverside Drive',
          city: 'Sacramento',
          defaultTaxCodeId: taxCodeId,
          integrationData: { erpKey: 'S-1' },
        },
      }),
      201,
    ).body;
    expect(job.defaultLocationId).to.be.a('string');
    const location = expectStatus(await org.api.get(`/locations/${job.defaultLocationId}`), 200).body;
    expect(location).to.include({
      name: 'Riverside MOB jobsite',
      type: 'Jobsite',
      addressLine1: '4100 Riverside Drive',
      city: 'Sacramento',
      state: null,
      defaultTaxCodeId: taxCodeId,
    });
    expect(location.jobs).to.deep.equal([{ id: job.id, code: 'J-2002', name: 'Riverside Medical Office Building' }]);
  });

  it('rejects both defaultLocationId and defaultLocation, foreign references (404) and a duplicate code (409)', async () => {
    const p = problemOf(await org.api.post('/jobs', { code: 'J-BAD', name: 'x', defaultLocationId: siteId, defaultLocation: { name: 'y' } }), 400);
    expect(p.errors[0].field).to.equal('body.defaultLocation');
    const foreignTax = expectStatus(await other.api.post('/tax-codes', { code: 'TX-O', description: 'other', taxPercent: 0.1 }), 201).body.id;
    const foreignGroup = expectStatus(await other.api.post('/groups', { name: 'Other' }), 201).body.id;
    const foreignLocation = expectStatus(await other.api.post('/locations', { name: 'Other', type: 'Office' }), 201).body.id;
    expect(problemOf(await org.api.post('/jobs', { code: 'J-BAD', name: 'x', defaultTaxCodeId: foreignTax }), 404).detail).to.contain('defaultTaxCodeId');
    expect(problemOf(await org.api.post('/jobs', { code: 'J-BAD', name: 'x', groupIds: [groupA.id, foreignGroup] }), 404).detail).to.contain(foreignGroup);
    expect(problemOf(await org.api.post('/jobs', { code: 'J-BAD', name: 'x', defaultLocationId: foreignLocation }), 404).detail).to.contain(
      'defaultLocationId',
    );
    problemOf(await org.api.get('/jobs/J-BAD'), 404);
    expect(problemOf(await org.api.post('/jobs', { code: 'J-1001', name: 'dup' }), 409).errors[0]).to.include({ field: 'body.code', rule: 'unique' });
  });

  it('answers an empty-string ID like any value that is no ID of the organization: 404 naming the input', async () => {
    expectStatus(await org.api.post('/jobs', { code: 'J-EMPTY', name: 'x' }), 201);
    for (const [field, what] of [
      ['defaultTaxCodeId', 'tax code'],
      ['defaultLocationId', 'location'],
    ]) {
      for (const value of ['', 'garbage']) {
        const expected = `body.${field}: no ${what} ${value} exists in your organization.`;
        expect(problemOf(await org.api.post('/jobs', { code: 'J-EMPTY-2', name: 'x', [field]: value }), 404).detail).to.equal(expected);
        expect(problemOf(await org.api.patch('/jobs/J-EMPTY', { [field]: value }), 404).detail).to.equal(expected);
      }
    }
    problemOf(await org.api.post('/jobs', { code: 'J-EMPTY-2', name: 'x', defaultLocation: { name: 'y', defaultTaxCodeId: '' } }), 404);
    problemOf(await org.api.get('/jobs/J-EMPTY-2'), 404);
    expect(expectStatus(await org.api.get('/jobs/J-EMPTY'), 200).body).to.include({ defaultTaxCodeId: null, defaultLocationId: null });
  });

  it('lists ordered by createdAt by default; orders and filters on the allowed fields only', async () => {
    const all = expectStatus(await org.api.get('/jobs?limit=1000'), 200).body as any[];
    const created = all.map((j) => j.createdAt);
    expect(created).to.deep.equal([...created].sort());
    const byName = (expectStatus(await org.api.get('/jobs?orderBy=name&direction=DESC&filter[code_in]=J-1001,J-1002,J-1003'), 200).body as any[]).map(
      (j) => j.code,
    );
    expect(byName).to.deep.equal(['J-1003', 'J-1002', 'J-1001']);
    const closed = (expectStatus(await org.api.get('/jobs?filter[state]=CLOSED&orderBy=code'), 200).body as any[]).map((j) => j.code);
    expect(closed).to.include('J-1002').and.not.include('J-1001');
    const started = (expectStatus(await org.api.get('/jobs?filter[startDate_gt]=2026-01-01T00:00:00.000Z&orderBy=startDate'), 200).body as any[]).map(
      (j) => j.code,
    );
    expect(started).to.deep.equal(['J-2001', 'J-1001']);
    const named = (expectStatus(await org.api.get('/jobs?filter[name_starts_with]=bay'), 200).body as any[]).map((j) => j.code);
    expect(named).to.deep.equal(['J-1002']);
    problemOf(await org.api.get('/jobs?filter[defaultTaxCodeId]=x'), 400);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=state'), async () => {
    problemOf(await org.api.get('/jobs?orderBy=state'), 400);
  });

  it('reads by id or code', async () => {
    const byCode = expectStatus(await org.api.get('/jobs/J-1001'), 200).body;
    expect(expectStatus(await org.api.get(`/jobs/${byCode.id}`), 200).body).to.deep.equal(byCode);
    problemOf(await org.api.get('/jobs/J-NONE'), 404);
  });

  it('PATCH renames (path by id or by code), replaces groups and updates fields', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'J-3000', name: 'Rename me', groupIds: [groupA.id] }), 201).body;
    const renamed = expectStatus(
      await org.api.patch(`/jobs/${job.id}`, { code: 'J-3001', groupIds: [groupB.id], state: 'CLOSED', defaultTaxCodeId: taxCodeId }),
      200,
    ).body;
    expect(renamed).to.include({ id: job.id, code: 'J-3001', name: 'Rename me', state: 'CLOSED', defaultTaxCodeId: taxCodeId });
    expect(renamed.groups.map((g: any) => g.id)).to.deep.equal([groupB.id]);
    problemOf(await org.api.get('/jobs/J-3000'), 404);
    const again = expectStatus(await org.api.patch('/jobs/J-3001', { code: 'J-3002', defaultTaxCodeId: null, groupIds: [] }), 200).body;
    expect(again).to.include({ id: job.id, code: 'J-3002', defaultTaxCodeId: null });
    expect(again.groups).to.deep.equal([]);
    problemOf(await org.api.patch('/jobs/J-3002', { code: 'J-1001' }), 409);
    problemOf(await org.api.patch('/jobs/J-3002', { defaultLocationId: siteId, defaultLocation: { name: 'x' } }), 400);
  });

  itDirect('rejects an empty update', PRISM.invalidRequest('an empty PATCH body'), async () => {
    problemOf(await org.api.patch('/jobs/J-1001', {}), 400);
  });

  it('PATCH defaultLocation creates the default location, then updates it; a Warehouse keeps its type', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'J-3100', name: 'Sunrise Mall' }), 201).body;
    const withLocation = expectStatus(await org.api.patch('/jobs/J-3100', { defaultLocation: { name: 'Sunrise jobsite', city: 'Citrus Heights' } }), 200).body;
    const locationId = withLocation.defaultLocationId;
    expect(locationId).to.be.a('string');
    const updated = expectStatus(await org.api.patch(`/jobs/${job.id}`, { defaultLocation: { name: 'Sunrise jobsite (east)', zipcode: '95610' } }), 200).body;
    expect(updated.defaultLocationId).to.equal(locationId);
    expect(expectStatus(await org.api.get(`/locations/${locationId}`), 200).body).to.include({
      name: 'Sunrise jobsite (east)',
      city: 'Citrus Heights',
      zipcode: '95610',
    });
    expectStatus(await org.api.patch('/jobs/J-3100', { defaultLocationId: siteId }), 200);
    const p = problemOf(await org.api.patch('/jobs/J-3100', { defaultLocation: { name: 'Yard', type: 'Office' } }), 400);
    expect(p.detail).to.contain('Warehouse');
  });

  it('attaches, lists and detaches job locations; removing the default promotes the earliest attached', async () => {
    expectStatus(await org.api.post('/jobs', { code: 'J-4000', name: 'Locations job' }), 201);
    const ids: string[] = [];
    for (const name of ['First site', 'Second site', 'Third site'])
      ids.push(expectStatus(await org.api.post('/locations', { name, type: 'Jobsite' }), 201).body.id);
    let job = expectStatus(await org.api.post(`/jobs/J-4000/locations?locationId=${ids[0]}`), 200).body;
    expect(job.defaultLocationId).to.equal(null);
    expectStatus(await org.api.post(`/jobs/J-4000/locations?locationId=${ids[1]}`), 200);
    job = expectStatus(await org.api.post(`/jobs/J-4000/locations?locationId=${ids[2]}&shouldSetAsDefault=true`), 200).body;
    expect(job.defaultLocationId).to.equal(ids[2]);
    expectStatus(await org.api.post(`/jobs/J-4000/locations?locationId=${ids[2]}`), 200);
    const listed = (expectStatus(await org.api.get('/jobs/J-4000/locations?orderBy=displayName&direction=DESC'), 200).body as any[]).map((l) => l.name);
    expect(listed).to.deep.equal(['Third site', 'Second site', 'First site']);
    const filtered = (expectStatus(await org.api.get('/jobs/J-4000/locations?filter[name_starts_with]=sec'), 200).body as any[]).map((l) => l.id);
    expect(filtered).to.deep.equal([ids[1]]);
    job = expectStatus(await org.api.delete(`/jobs/J-4000/locations?locationId=${ids[2]}`), 200).body;
    expect(job.defaultLocationId).to.equal(ids[0]);
    job = expectStatus(await org.api.delete(`/jobs/J-4000/locations?locationId=${ids[0]}`), 200).body;
    expect(job.defaultLocationId).to.equal(ids[1]);
    job = expectStatus(await org.api.delete(`/jobs/J-4000/locations?locationId=${ids[1]}`), 200).body;
    expect(job.defaultLocationId).to.equal(null);
    expect(expectStatus(await org.api.get('/jobs/J-4000/locations'), 200).body).to.deep.equal([]);
    const foreign = expectStatus(await other.api.post('/locations', { name: 'Not yours', type: 'Other' }), 201).body.id;
    problemOf(await org.api.post(`/jobs/J-4000/locations?locationId=${foreign}`), 404);
    problemOf(await org.api.delete(`/jobs/J-4000/locations?locationId=${MISSING_ID}`), 404);
  });

  itDirect('requires the locationId to attach', PRISM.invalidRequest('POST without the required locationId'), async () => {
    problemOf(await org.api.post('/jobs/J-1001/locations'), 400);
  });

  it('assigns, lists and removes job users', async () => {
    expectStatus(await org.api.post('/jobs', { code: 'J-5000', name: 'Users job' }), 201);
    const job = expectStatus(await org.api.post(`/jobs/J-5000/users?userId=${org.userId}`), 200).body;
    expect(job.code).to.equal('J-5000');
    expectStatus(await org.api.post(`/jobs/J-5000/users?userId=${org.userId}`), 200);
    const users = expectStatus(await org.api.get('/jobs/J-5000/users?orderBy=email&filter[admin]=true'), 200).body as any[];
    expect(users.map((u) => u.id)).to.deep.equal([org.userId]);
    expect(users[0]).to.have.keys(['id', 'admin', 'avatarUrl', 'displayName', 'email', 'firstName', 'lastName', 'phone', 'role', 'createdAt', 'updatedAt']);
    expectStatus(await org.api.delete(`/jobs/J-5000/users?userId=${org.userId}`), 200);
    expect(expectStatus(await org.api.get('/jobs/J-5000/users'), 200).body).to.deep.equal([]);
    problemOf(await org.api.post(`/jobs/J-5000/users?userId=${other.userId}`), 404);
    problemOf(await org.api.delete(`/jobs/J-5000/users?userId=${MISSING_ID}`), 404);
  });

  itDirect('rejects an orderBy the contract does not list for job users', PRISM.invalidRequest('orderBy=role'), async () => {
    problemOf(await org.api.get('/jobs/J-1001/users?orderBy=role'), 400);
  });

  it('answers another organization’s job exactly like a missing one, on every operation', async () => {
    const job = expectStatus(await org.api.post('/jobs', { code: 'J-TEN', name: 'Tenancy' }), 201).body;
    const missing = `/jobs/${MISSING_ID}`;
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}`, missing);
    await expectForeignLikeMissing(other, 'GET', '/jobs/J-TEN', '/jobs/J-NOPE');
    await expectForeignLikeMissing(other, 'PATCH', `/jobs/${job.id}`, missing, { name: 'stolen' });
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/locations`, `${missing}/locations`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${job.id}/locations?locationId=${siteId}`, `${missing}/locations?locationId=${siteId}`);
    await expectForeignLikeMissing(other, 'DELETE', `/jobs/${job.id}/locations?locationId=${siteId}`, `${missing}/locations?locationId=${siteId}`);
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/users`, `${missing}/users`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${job.id}/users?userId=${other.userId}`, `${missing}/users?userId=${other.userId}`);
    await expectForeignLikeMissing(other, 'DELETE', `/jobs/${job.id}/users?userId=${other.userId}`, `${missing}/users?userId=${other.userId}`);
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/nextPurchaseOrderNumber`, `${missing}/nextPurchaseOrderNumber`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${job.id}/nextPurchaseOrderNumber`, `${missing}/nextPurchaseOrderNumber`, { nextCounter: 5 });
    // A foreign location or user given to one's own job is answered like a missing one too.
    const own = expectStatus(await other.api.post('/jobs', { code: 'J-OWN', name: 'Own' }), 201).body;
    await expectForeignLikeMissing(other, 'POST', `/jobs/${own.id}/locations?locationId=${siteId}`, `/jobs/${own.id}/locations?locationId=${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${own.id}/users?userId=${org.userId}`, `/jobs/${own.id}/users?userId=${MISSING_ID}`);
  });
});
