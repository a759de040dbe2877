import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';
import { statementsOf } from './support/statements';

describe('vendors', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
    for (const [code, name] of [
      ['V-B', 'Bravo Supply'],
      ['V-A', 'Alpha Lumber'],
      ['V-C', 'Charlie Electric'],
    ]) {
      expectStatus(await org.api.post('/vendors', { code, name }), 201);
    }
  });

  it('creates with no location, no type and deletedAt null; codes are unique (409)', async () => {
    const v = expectStatus(await org.api.post('/vendors', { code: 'V-NEW', name: 'New Vendor' }), 201).body;
    expect(v).to.include({ code: 'V-NEW', name: 'New Vendor', location: null, type: null, deletedAt: null });
    problemOf(await org.api.post('/vendors', { code: 'V-NEW', name: 'Again' }), 409);
  });

  itDirect('requires a code', PRISM.invalidRequest('a vendor without code'), async () => {
    expect(problemOf(await org.api.unchecked.post('/vendors', { name: 'No code' }), 400).errors.map((e) => e.field)).to.include('body.code');
  });

  it('lists ordered by createdAt by default; orders and filters on the allowed fields', async () => {
    const created = (expectStatus(await org.api.get('/vendors'), 200).body as any[]).map((v) => v.createdAt);
    expect(created).to.deep.equal([...created].sort());
    expect((expectStatus(await org.api.get('/vendors?orderBy=name&filter[code_in]=V-A,V-B,V-C'), 200).body as any[]).map((v) => v.code)).to.deep.equal([
      'V-A',
      'V-B',
      'V-C',
    ]);
    expect((expectStatus(await org.api.get('/vendors?filter[name_contains]=electric'), 200).body as any[]).map((v) => v.code)).to.deep.equal(['V-C']);
    problemOf(await org.api.get('/vendors?filter[type]=x'), 400);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=type'), async () => {
    problemOf(await org.api.get('/vendors?orderBy=type'), 400);
  });

  it('PATCH renames, and `type` creates the vendor type when absent and reuses it after', async () => {
    const v = expectStatus(await org.api.post('/vendors', { code: 'V-T', name: 'Typed' }), 201).body;
    const a = expectStatus(await org.api.patch(`/vendors/${v.id}`, { code: 'V-T2', type: 'Plumbing supply' }), 200).body;
    expect(a).to.include({ id: v.id, code: 'V-T2' });
    expect(a.type).to.include({ name: 'Plumbing supply' });
    const b = expectStatus(await org.api.patch('/vendors/V-B', { type: 'Plumbing supply', name: 'Bravo Supply Co' }), 200).body;
    expect(b.type!.id).to.equal(a.type!.id);
    expect(b.name).to.equal('Bravo Supply Co');
    expect(expectStatus(await org.api.patch('/vendors/V-T2', { type: null }), 200).body.type).to.equal(null);
    problemOf(await org.api.get('/vendors/V-T'), 404);
    problemOf(await org.api.patch('/vendors/V-T2', { code: 'V-A' }), 409);
  });

  it('attaches a location of the organization', async () => {
    const l = expectStatus(await org.api.post('/locations', { name: 'Will call counter', type: 'Will_Call', city: 'Sacramento' }), 201).body;
    const v = expectStatus(await org.api.post('/vendors/V-A/location', { locationId: l.id }), 200).body;
    expect(v.location).to.include({ id: l.id, name: 'Will call counter', type: 'Will_Call', city: 'Sacramento' });
    expect(v.location).to.not.have.property('jobs');
    problemOf(await org.api.post('/vendors/V-A/location', { locationId: MISSING_ID }), 404);
  });

  it('soft-deletes; includeDeleted shows it on list and read, otherwise 404', async () => {
    const v = expectStatus(await org.api.post('/vendors', { code: 'V-DEL', name: 'Gone' }), 201).body;
    const d = expectStatus(await org.api.delete('/vendors/V-DEL'), 200).body;
    expect(d.id).to.equal(v.id);
    expect(d.deletedAt).to.match(/Z$/);
    problemOf(await org.api.get('/vendors/V-DEL'), 404);
    problemOf(await org.api.get(`/vendors/${v.id}?includeDeleted=false`), 404);
    expect(expectStatus(await org.api.get(`/vendors/${v.id}?includeDeleted=true`), 200).body.deletedAt).to.equal(d.deletedAt);
    expect(expectStatus(await org.api.get('/vendors/V-DEL?includeDeleted=true'), 200).body.id).to.equal(v.id);
    expect((expectStatus(await org.api.get('/vendors?filter[code]=V-DEL'), 200).body as any[]).length).to.equal(0);
    expect((expectStatus(await org.api.get('/vendors?filter[code]=V-DEL&includeDeleted=true'), 200).body as any[]).map((x) => x.id)).to.deep.equal([v.id]);
    problemOf(await org.api.patch('/vendors/V-DEL', { name: 'x' }), 404);
    problemOf(await org.api.delete('/vendors/V-DEL'), 404);
    const again = expectStatus(await org.api.post('/vendors', { code: 'V-DEL', name: 'Back' }), 201).body;
    expect(expectStatus(await org.api.get('/vendors/V-DEL?includeDeleted=true'), 200).body.id).to.equal(again.id);
  });

  it('batch: size limits, positions, one transaction, input order, 1000 elements quickly', async () => {
    expect(problemOf(await org.api.post('/vendors/batch', { inputs: [] }), 400).errors[0].message).to.equal('Invalid input, list cannot be empty');
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ code: `X${i}`, name: 'x' }));
    expect(problemOf(await org.api.post('/vendors/batch', { inputs: tooMany }), 400).errors[0].message).to.equal(
      'Invalid input, list cannot be greater than 1000',
    );
    const dup = problemOf(
      await org.api.post('/vendors/batch', {
        inputs: [
          { code: 'VB-1', name: 'a' },
          { code: 'VB-2', name: 'b' },
          { code: 'VB-1', name: 'c' },
        ],
      }),
      400,
    );
    expect(dup.errors[0].message).to.match(/^Position 2: /);
    problemOf(await org.api.get('/vendors/VB-1'), 404);
    const inputs = Array.from({ length: 1000 }, (_, i) => ({ code: `VB-${999 - i}`, name: `Batch vendor ${i}` }));
    inputs[0] = { code: 'V-C', name: 'Charlie Electric Supply' };
    // Quick by construction, not by the clock: set-based statements, never one per element.
    const { result, statements } = await statementsOf(() => org.api.post('/vendors/batch', { inputs }));
    const res = expectStatus(result, 200).body as any[];
    expect(statements).to.be.below(50);
    expect(res.map((v) => v.code)).to.deep.equal(inputs.map((i) => i.code));
    const charlie = expectStatus(await org.api.get('/vendors/V-C'), 200).body;
    expect(charlie).to.include({ id: res[0].id, name: 'Charlie Electric Supply' });
  });

  itDirect(
    'batch: elements the schema rejects are named by position with the duplicates, in one 400, and nothing is saved',
    PRISM.invalidRequest('elements without a name, with an empty or too long name, a numeric code, null'),
    async () => {
      const p = problemOf(
        await org.api.unchecked.post('/vendors/batch', {
          inputs: [
            { code: 'VS-A', name: 'ok' },
            { code: 'VS-B' },
            { code: 'VS-C', name: '' },
            { code: 'VS-A', name: 'duplicate' },
            null,
            { code: 7, name: 'x'.repeat(201) },
          ],
        }),
        400,
      );
      expect(p.errors).to.have.length(1);
      expect(p.errors[0].message.split('\n')).to.deep.equal([
        'Position 1: name: is required (rule required)',
        'Position 2: name: must NOT have fewer than 1 characters (rule minLength)',
        'Position 3: code VS-A appears more than once in the batch (first at position 0)',
        'Position 4: must be an object (rule type)',
        'Position 5: code: must be a string (rule type); name: must NOT have more than 200 characters (rule maxLength)',
      ]);
      problemOf(await org.api.get('/vendors/VS-A'), 404);
    },
  );

  it('answers another organization’s vendor like a missing one', async () => {
    const intruder = await newOrg();
    const v = expectStatus(await org.api.post('/vendors', { code: 'V-PRIV', name: 'Private' }), 201).body;
    const l = expectStatus(await intruder.api.post('/locations', { name: 'Intruder site', type: 'Office' }), 201).body;
    const missing = `/vendors/${MISSING_ID}`;
    await expectForeignLikeMissing(intruder, 'GET', `/vendors/${v.id}`, missing);
    await expectForeignLikeMissing(intruder, 'GET', '/vendors/V-PRIV', '/vendors/V-NONE');
    await expectForeignLikeMissing(intruder, 'PATCH', `/vendors/${v.id}`, missing, { name: 'stolen' });
    await expectForeignLikeMissing(intruder, 'DELETE', `/vendors/${v.id}`, missing);
    await expectForeignLikeMissing(intruder, 'POST', `/vendors/${v.id}/location`, `${missing}/location`, { locationId: l.id });
  });
});
