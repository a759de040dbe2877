import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';
import { statementsOf } from './support/statements';

describe('jobs batch upsert', () => {
  let org: TestOrg;
  let other: TestOrg;
  let groupId: string;
  let taxCodeId: string;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    groupId = expectStatus(await org.api.post('/groups', { name: 'Batch group' }), 201).body.id;
    taxCodeId = expectStatus(await org.api.post('/tax-codes', { code: 'TX-B', description: 'Batch tax', taxPercent: 0.05 }), 201).body.id;
  });

  it('rejects an empty list and 1001 elements before examining them', async () => {
    expect(problemOf(await org.api.post('/jobs/batch', { inputs: [] }), 400).errors[0].message).to.equal('Invalid input, list cannot be empty');
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ code: 'SAME', name: `x${i}` }));
    expect(problemOf(await org.api.post('/jobs/batch', { inputs: tooMany }), 400).errors[0].message).to.equal(
      'Invalid input, list cannot be greater than 1000',
    );
  });

  it('upserts 1000 jobs in one quick request, returning them in input order', async () => {
    const inputs = Array.from({ length: 1000 }, (_, i) => ({
      code: `B-${String(999 - i).padStart(4, '0')}`,
      name: `Batch job ${i}`,
      ...(i % 10 === 0 ? { groupIds: [groupId], defaultTaxCodeId: taxCodeId } : {}),
      ...(i % 100 === 1 ? { defaultLocation: { name: `Batch site ${i}`, city: 'Stockton' } } : {}),
    }));
    // Quick by construction, not by the clock: set-based statements, never one per element.
    const { result, statements } = await statementsOf(() => org.api.post('/jobs/batch', { inputs }));
    const res = expectStatus(result, 200).body as any[];
    expect(statements).to.be.below(50);
    expect(res.map((j) => j.code)).to.deep.equal(inputs.map((i) => i.code));
    expect(res[0].groups.map((g: any) => g.id)).to.deep.equal([groupId]);
    expect(res[0].defaultTaxCodeId).to.equal(taxCodeId);
    expect(res[1].defaultLocationId).to.be.a('string');
    expect(res[2]).to.include({ state: 'OPEN', defaultLocationId: null, startDate: null });
    const site = expectStatus(await org.api.get(`/locations/${res[1].defaultLocationId}`), 200).body;
    expect(site).to.include({ name: 'Batch site 1', type: 'Jobsite', city: 'Stockton' });
    expect(site.jobs.map((j: any) => j.code)).to.deep.equal([res[1].code]);
  });

  it('replies each job as GET /jobs/{jobIdOrCode} then shows it, in input order, whether or not the batch gives groupIds', async () => {
    const grouped = expectStatus(await org.api.post('/jobs/batch', { inputs: [{ code: 'R-2', name: 'Grouped', groupIds: [groupId] }] }), 200).body[0];
    expect(grouped.groups.map((g: any) => g.id)).to.deep.equal([groupId]);
    // No groupIds: the stored groups stay and show; a new job has none. Codes out of lock order.
    for (const inputs of [
      [
        { code: 'R-3', name: 'New', defaultTaxCodeId: taxCodeId },
        { code: 'R-2', name: 'Grouped, renamed', state: 'CLOSED' as const },
        { code: 'R-1', name: 'New too', startDate: '2026-07-01T00:00:00.000Z' },
      ],
      [
        { code: 'R-1', name: 'New too', groupIds: [groupId] },
        { code: 'R-2', name: 'Grouped again', groupIds: [] },
      ],
    ]) {
      const reply = expectStatus(await org.api.post('/jobs/batch', { inputs }), 200).body as any[];
      expect(reply.map((j) => j.code)).to.deep.equal(inputs.map((i) => i.code));
      for (const job of reply) expect(job).to.deep.equal(expectStatus(await org.api.get(`/jobs/${job.id}`), 200).body);
    }
    const [r1, r2] = await Promise.all(['R-1', 'R-2'].map(async (c) => expectStatus(await org.api.get(`/jobs/${c}`), 200).body));
    expect([r1.groups.length, r2.groups.length]).to.deep.equal([1, 0]);
    expect(r2).to.include({ id: grouped.id, name: 'Grouped again', state: 'CLOSED' });
  });

  it('updates matched jobs, keeping fields left out, and updates an existing inline default location', async () => {
    const first = expectStatus(
      await org.api.post('/jobs/batch', {
        inputs: [
          {
            code: 'U-1',
            name: 'Upsert one',
            state: 'CLOSED',
            startDate: '2026-05-01T00:00:00.000Z',
            defaultTaxCodeId: taxCodeId,
            defaultLocation: { name: 'U site', city: 'Lodi' },
          },
        ],
      }),
      200,
    ).body[0];
    const second = expectStatus(
      await org.api.post('/jobs/batch', {
        inputs: [
          { code: 'NEW-1', name: 'New one' },
          { code: 'U-1', name: 'Upsert one renamed', groupIds: [groupId], defaultLocation: { name: 'U site 2' } },
        ],
      }),
      200,
    ).body;
    expect(second[1]).to.include({
      id: first.id,
      name: 'Upsert one renamed',
      state: 'CLOSED',
      startDate: '2026-05-01T00:00:00.000Z',
      defaultTaxCodeId: taxCodeId,
      defaultLocationId: first.defaultLocationId,
    });
    expect(second[1].groups.map((g: any) => g.id)).to.deep.equal([groupId]);
    expect(expectStatus(await org.api.get(`/locations/${first.defaultLocationId}`), 200).body).to.include({ name: 'U site 2', city: 'Lodi' });
    expect(second[0]).to.include({ code: 'NEW-1', state: 'OPEN' });
  });

  it('names every bad position and saves nothing', async () => {
    const foreignGroup = expectStatus(await other.api.post('/groups', { name: 'Foreign group' }), 201).body.id;
    const foreignLocation = expectStatus(await other.api.post('/locations', { name: 'Foreign', type: 'Office' }), 201).body.id;
    const inputs = [
      { code: 'P-OK', name: 'Fine' },
      { code: 'P-1', name: 'Foreign group', groupIds: [foreignGroup] },
      { code: 'P-2', name: 'Both', defaultLocationId: foreignLocation, defaultLocation: { name: 'x' } },
      { code: 'P-OK', name: 'Duplicate' },
      { code: 'P-4', name: 'Bad tax', defaultTaxCodeId: 'not-an-id' },
    ];
    const p = problemOf(await org.api.post('/jobs/batch', { inputs }), 400);
    const lines = p.errors[0].message.split('\n');
    expect(lines.map((l) => l.split(':')[0])).to.deep.equal(['Position 1', 'Position 2', 'Position 3', 'Position 4']);
    expect(lines[1]).to.contain('not both').and.contain('defaultLocationId');
    expect(lines[2]).to.contain('more than once');
    problemOf(await org.api.get('/jobs/P-OK'), 404);
  });

  it('reports an empty-string ID by position, like any value that is no ID of the organization, with the other rejected elements', async () => {
    const inputs = [
      { code: 'E-OK', name: 'Fine' },
      { code: 'E-1', name: 'Empty location', defaultLocationId: '' },
      { code: 'E-2', name: 'Empty tax code', defaultTaxCodeId: '' },
      { code: 'E-3', name: 'Empty inline tax code', defaultLocation: { name: 'Site', defaultTaxCodeId: '' } },
      { code: 'E-4', name: 'Not an ID', defaultTaxCodeId: 'garbage' },
    ];
    const p = problemOf(await org.api.post('/jobs/batch', { inputs }), 400);
    expect(p.errors).to.have.length(1);
    expect(p.errors[0].message.split('\n')).to.deep.equal([
      'Position 1: defaultLocationId: no location  exists in your organization',
      'Position 2: defaultTaxCodeId: no tax code  exists in your organization',
      'Position 3: defaultLocation.defaultTaxCodeId: no tax code  exists in your organization',
      'Position 4: defaultTaxCodeId: no tax code garbage exists in your organization',
    ]);
    problemOf(await org.api.get('/jobs/E-OK'), 404);
  });

  itDirect(
    'names the elements the schema rejects by position, in the same 400 as the ones its own checks reject, and saves nothing',
    PRISM.invalidRequest('elements without a name, with an unknown state, an empty name, a list that is not one, an element that is not an object'),
    async () => {
      const inputs = [
        { code: 'S-OK', name: 'Fine' },
        { code: 'S-1' },
        { code: 'S-2', name: 'Weird state', state: 'WEIRD' },
        { code: 'S-3', name: 'Unknown tax code', defaultTaxCodeId: MISSING_ID },
        { code: 'S-4', name: '', groupIds: 'not a list', defaultLocation: { city: 'Lodi' } },
        'not a job',
        { code: 'S-OK', name: 'Duplicate of position 0' },
      ];
      const p = problemOf(await org.api.unchecked.post('/jobs/batch', { inputs }), 400);
      expect(p.errors).to.have.length(1);
      expect(p.errors[0].message.split('\n')).to.deep.equal([
        'Position 1: name: is required (rule required)',
        'Position 2: state: must be one of OPEN, CLOSED (got "WEIRD") (rule enum)',
        `Position 3: defaultTaxCodeId: no tax code ${MISSING_ID} exists in your organization`,
        'Position 4: name: must NOT have fewer than 1 characters (rule minLength); defaultLocation.name: is required (rule required); groupIds: must be an array (rule type)',
        'Position 5: must be an object (rule type)',
        'Position 6: code S-OK appears more than once in the batch (first at position 0)',
      ]);
      expect(p.detail).to.equal('6 elements were rejected.');
      problemOf(await org.api.get('/jobs/S-OK'), 404);
      problemOf(await org.api.get('/jobs/S-3'), 404);
    },
  );

  itDirect(
    'answers errors of the request itself in the general format, without the errors of its elements',
    PRISM.invalidRequest('no inputs, inputs not a list, an unknown body property, an element without a name'),
    async () => {
      const missing = problemOf(await org.api.unchecked.post('/jobs/batch', {}), 400);
      expect(missing.errors).to.deep.equal([{ message: 'body.inputs: is required', field: 'body.inputs', rule: 'required' }]);
      const notList = problemOf(await org.api.unchecked.post('/jobs/batch', { inputs: { code: 'J', name: 'x' } }), 400);
      expect(notList.errors).to.deep.equal([{ message: 'body.inputs: must be an array', field: 'body.inputs', rule: 'type' }]);
      // Another property of the body is the request's error; the bad element is not reported with it.
      const extra = problemOf(await org.api.unchecked.post('/jobs/batch', { inputs: [{ code: 'J' }], colour: 'red' }), 400);
      expect(extra.errors).to.deep.equal([{ message: 'body.colour: unknown property colour', field: 'body.colour', rule: 'additionalProperties' }]);
      // The size checks come before the elements, even schema-invalid ones.
      const tooMany = Array.from({ length: 1001 }, (_, i) => (i === 3 ? { code: 'X' } : { code: `X${i}`, name: 'x' }));
      expect(problemOf(await org.api.unchecked.post('/jobs/batch', { inputs: tooMany }), 400).errors).to.deep.equal([
        { message: 'Invalid input, list cannot be greater than 1000' },
      ]);
    },
  );
});
