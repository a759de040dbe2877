import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';

describe('locations', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    for (const [name, type, city, addressLine1] of [
      ['Bravo office', 'Office', 'Sacramento', '100 Capitol Mall'],
      ['Alpha yard', 'Warehouse', 'Rancho Cordova', '3 Industrial Way'],
      ['Charlie site', 'Jobsite', 'Davis', null],
    ] as const) {
      expectStatus(await org.api.post('/locations', { name, type, city, addressLine1 }), 201);
    }
  });

  it('creates with every optional field null, visibility ALL and no jobs or vendors', async () => {
    const l = expectStatus(await org.api.post('/locations', { name: 'Bare', type: 'Other' }), 201).body;
    expect(l).to.deep.include({
      name: 'Bare',
      type: 'Other',
      addressLine1: null,
      addressLine2: null,
      city: null,
      state: null,
      zipcode: null,
      directions: null,
      phone: null,
      defaultTaxCodeId: null,
      latitude: null,
      longitude: null,
      visibility: 'ALL',
      jobs: [],
      vendors: [],
    });
    const geo = expectStatus(await org.api.post('/locations', { name: 'Geo', type: 'Will_Call', latitude: 38.58, longitude: -121.49 }), 201).body;
    expect(geo).to.include({ latitude: 38.58, longitude: -121.49 });
  });

  itDirect('requires name and type', PRISM.invalidRequest('a location without name and type'), async () => {
    const fields = problemOf(await org.api.unchecked.post('/locations', { city: 'Davis' }), 400).errors.map((e) => e.field);
    expect(fields).to.include.members(['body.name', 'body.type']);
  });

  it('rejects visibility ROLE on create and update: configured only in the application', async () => {
    const p = problemOf(await org.api.post('/locations', { name: 'Role', type: 'Office', visibility: 'ROLE' }), 400);
    expect(p.detail).to.match(/role-based visibility is configured only in the application/);
    const l = expectStatus(await org.api.post('/locations', { name: 'Role later', type: 'Office', visibility: 'ALL' }), 201).body;
    expect(problemOf(await org.api.patch(`/locations/${l.id}`, { visibility: 'ROLE' }), 400).detail).to.match(/configured only in the application/);
  });

  it('refuses to change the type of a Warehouse location, allows other changes', async () => {
    const w = expectStatus(await org.api.post('/locations', { name: 'Main warehouse', type: 'Warehouse' }), 201).body;
    const p = problemOf(await org.api.patch(`/locations/${w.id}`, { type: 'Office' }), 400);
    expect(p.detail).to.match(/type of a Warehouse location cannot be changed/);
    expect(expectStatus(await org.api.patch(`/locations/${w.id}`, { type: 'Warehouse', phone: '+1 916 555 0100' }), 200).body).to.include({
      type: 'Warehouse',
      phone: '+1 916 555 0100',
    });
    const o = expectStatus(await org.api.post('/locations', { name: 'Office to branch', type: 'Office' }), 201).body;
    expect(expectStatus(await org.api.patch(`/locations/${o.id}`, { type: 'Branch', city: 'Roseville', addressLine2: 'Suite 4' }), 200).body).to.include({
      type: 'Branch',
      city: 'Roseville',
      addressLine2: 'Suite 4',
      name: 'Office to branch',
    });
  });

  it('lists ordered by createdAt; displayName orders by name; filters on the allowed fields', async () => {
    const created = (expectStatus(await org.api.get('/locations'), 200).body as any[]).map((l) => l.createdAt);
    expect(created).to.deep.equal([...created].sort());
    const names = (
      expectStatus(await org.api.get('/locations?orderBy=displayName&filter[name_in]=Alpha yard,Bravo office,Charlie site'), 200).body as any[]
    ).map((l) => l.name);
    expect(names).to.deep.equal(['Alpha yard', 'Bravo office', 'Charlie site']);
    expect(
      (expectStatus(await org.api.get('/locations?filter[type]=Warehouse&filter[city]=Rancho Cordova'), 200).body as any[]).map((l) => l.name),
    ).to.deep.equal(['Alpha yard']);
    expect((expectStatus(await org.api.get('/locations?filter[addressLine1_starts_with]=100'), 200).body as any[]).map((l) => l.name)).to.deep.equal([
      'Bravo office',
    ]);
    problemOf(await org.api.get('/locations?filter[phone]=1'), 400);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=name'), async () => {
    problemOf(await org.api.get('/locations?orderBy=name'), 400);
  });

  it('shows the jobs (attached or default) and vendors of a location, and checks the tax code', async () => {
    const l = expectStatus(await org.api.post('/locations', { name: 'Shared site', type: 'Jobsite' }), 201).body;
    expectStatus(await org.api.post('/jobs', { code: 'LJ-1', name: 'Default user', defaultLocationId: l.id }), 201);
    expectStatus(await org.api.post('/jobs', { code: 'LJ-2', name: 'Attacher' }), 201);
    expectStatus(await org.api.post(`/jobs/LJ-2/locations?locationId=${l.id}`), 200);
    expectStatus(await org.api.post('/vendors', { code: 'LV-1', name: 'Site vendor' }), 201);
    expectStatus(await org.api.post('/vendors/LV-1/location', { locationId: l.id }), 200);
    const read = expectStatus(await org.api.get(`/locations/${l.id}`), 200).body;
    expect(read.jobs.map((j: any) => j.code)).to.deep.equal(['LJ-1', 'LJ-2']);
    expect(read.vendors).to.have.length(1);
    expect(read.vendors[0]).to.include({ code: 'LV-1', name: 'Site vendor' });
    const other = await newOrg();
    const foreignTax = expectStatus(await other.api.post('/tax-codes', { code: 'TX-F', description: 'f', taxPercent: 0.1 }), 201).body.id;
    problemOf(await org.api.post('/locations', { name: 'Taxed', type: 'Office', defaultTaxCodeId: foreignTax }), 404);
    problemOf(await org.api.patch(`/locations/${l.id}`, { defaultTaxCodeId: foreignTax }), 404);
  });

  it('answers an empty-string tax code ID like any value that is no ID of the organization: 404 naming the input', async () => {
    const l = expectStatus(await org.api.post('/locations', { name: 'Untaxed', type: 'Office' }), 201).body;
    for (const value of ['', 'garbage']) {
      const expected = `body.defaultTaxCodeId: no tax code ${value} exists in your organization.`;
      expect(problemOf(await org.api.post('/locations', { name: 'Empty tax', type: 'Office', defaultTaxCodeId: value }), 404).detail).to.equal(expected);
      expect(problemOf(await org.api.patch(`/locations/${l.id}`, { defaultTaxCodeId: value }), 404).detail).to.equal(expected);
    }
    expect(expectStatus(await org.api.get('/locations?filter[name]=Empty tax'), 200).body).to.deep.equal([]);
    expect(expectStatus(await org.api.get(`/locations/${l.id}`), 200).body.defaultTaxCodeId).to.equal(null);
  });

  it('soft-deletes: returns deletedAt and the attachments it had, hides it and detaches it', async () => {
    const a = expectStatus(await org.api.post('/locations', { name: 'Doomed', type: 'Jobsite' }), 201).body;
    const b = expectStatus(await org.api.post('/locations', { name: 'Survivor', type: 'Jobsite' }), 201).body;
    expectStatus(await org.api.post('/jobs', { code: 'LD-1', name: 'Deleting', defaultLocationId: b.id }), 201);
    expectStatus(await org.api.post(`/jobs/LD-1/locations?locationId=${a.id}&shouldSetAsDefault=true`), 200);
    const deleted = expectStatus(await org.api.delete(`/locations/${a.id}`), 200).body;
    expect(deleted.id).to.equal(a.id);
    expect(deleted.deletedAt).to.match(/Z$/);
    expect(deleted.jobs.map((j: any) => j.code)).to.deep.equal(['LD-1']);
    problemOf(await org.api.get(`/locations/${a.id}`), 404);
    problemOf(await org.api.delete(`/locations/${a.id}`), 404);
    expect(expectStatus(await org.api.get('/jobs/LD-1'), 200).body.defaultLocationId).to.equal(b.id);
    expect((expectStatus(await org.api.get(`/locations?filter[id]=${a.id}`), 200).body as any[]).length).to.equal(0);
  });

  it('answers another organization’s location like a missing one', async () => {
    const intruder = await newOrg();
    const l = expectStatus(await org.api.post('/locations', { name: 'Private', type: 'Office' }), 201).body;
    const missing = `/locations/${MISSING_ID}`;
    await expectForeignLikeMissing(intruder, 'GET', `/locations/${l.id}`, missing);
    await expectForeignLikeMissing(intruder, 'PATCH', `/locations/${l.id}`, missing, { name: 'stolen' });
    await expectForeignLikeMissing(intruder, 'DELETE', `/locations/${l.id}`, missing);
  });
});
