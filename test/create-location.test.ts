import { expect } from 'chai';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { loadContract } from '../src/http/contract';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request (as test/webhooks.test.ts).
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/**
 * Every single-object create answers 201 with the new object's `Location` (its single read) and its
 * `ETag`, the tag that read gives: create, then PATCH with If-Match, without a GET in between.
 */
describe('creates answer Location and ETag', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    expectStatus(await org.api.post('/jobs', { code: 'LOC-J', name: 'Location job' }), 201);
    expectStatus(await org.api.post('/jobs/LOC-J/phases', { code: 'LOC-P', description: 'Phase' }), 201);
  });

  // Each create of one object, with a body it takes (the paths as the contract writes them).
  const CREATES: [string, Record<string, string>, Record<string, unknown> | undefined][] = [
    ['/tax-codes', {}, { code: 'LOC-T', description: 'Tax', taxPercent: 0.05 }],
    ['/units-of-measure', {}, { code: 'LOC-U', description: 'Unit' }],
    ['/jobs', {}, { code: 'LOC-J2', name: 'Second job' }],
    ['/groups', {}, { name: 'Location group' }],
    ['/locations', {}, { name: 'Yard', type: 'Warehouse' }],
    ['/vendors', {}, { code: 'LOC-V', name: 'Vendor' }],
    ['/global-phases', {}, { code: 'LOC-GP', description: 'Global phase' }],
    ['/jobs/{jobIdOrCode}/phases', { jobIdOrCode: 'LOC-J' }, { code: 'LOC-P2', description: 'Job phase' }],
    ['/global-categories', {}, { code: 'LOC-GC', description: 'Global category' }],
    ['/jobs/{jobIdOrCode}/phases/{phaseIdOrCode}/categories', { jobIdOrCode: 'LOC-J', phaseIdOrCode: 'LOC-P' }, { code: 'LOC-PC', description: 'Cat' }],
    ['/jobs/{jobIdOrCode}/categories', { jobIdOrCode: 'LOC-J' }, { code: 'LOC-JC', description: 'Job category' }],
    ['/users', {}, { email: 'location.user@builders.example', firstName: 'Lou', lastName: 'Cation', role: 'Field' }],
    ['/orders', {}, { purchaseOrderNumber: 'LOC-1', distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' }],
    // Takes no body (the contract declares none).
    ['/jobs/{jobIdOrCode}/billOfMaterials', { jobIdOrCode: 'LOC-J' }, undefined],
    // Disabled: a worker (through the proxy, the service's own) would otherwise try it and change its status before the read.
    ['/webhook-endpoints', {}, { url: 'https://127.0.0.1:9/hooks', enabled: false }],
  ];

  it('covers every create whose 201 declares Location', () => {
    const declared = Object.entries((loadContract() as any).paths as Record<string, any>)
      .filter(([, item]) => item.post?.responses?.['201']?.headers?.Location)
      .map(([path]) => path);
    expect(CREATES.map(([path]) => path)).to.have.members(declared);
  });

  for (const [path, params, body] of CREATES) {
    it(`POST ${path}: Location is the new object's read, ETag the tag that read answers`, async () => {
      const at = path.replace(/\{(\w+)\}/g, (_, p: string) => params[p]);
      const created = await org.api.unchecked.post(at, body);
      expect(created.status, created.text).to.equal(201);
      const location = created.headers.get('location')!;
      const etag = created.headers.get('etag');
      expect(location, 'Location').to.be.a('string');
      expect(etag, 'ETag').to.match(/^"[0-9a-f]{64}"$/);
      if (path.endsWith('/billOfMaterials')) expect(location).to.match(/\/jobs\/LOC-J\/billOfMaterials$/);
      else expect(location).to.equal(`${at}/${created.body.id}`);
      const read = await org.api.unchecked.get(location);
      expect(read.status, location).to.equal(200);
      expect(read.body.id).to.equal(created.body.id);
      expect(read.headers.get('etag'), 'the read answers the same ETag').to.equal(etag);
    });
  }

  it('a create replayed by its Idempotency-Key carries the same Location and ETag', async () => {
    const send = () => org.api.post('/vendors', { code: 'LOC-IDEM', name: 'Replayed' }, { headers: { 'Idempotency-Key': 'loc-idem-1' } });
    const first = expectStatus(await send(), 201);
    const again = expectStatus(await send(), 201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.headers.get('location')).to.equal(first.headers.get('location'));
    expect(again.headers.get('etag')).to.equal(first.headers.get('etag'));
  });
});
