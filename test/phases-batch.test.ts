import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { harness } from './support/harness';
import { insertJob } from './support/org-fixtures';
import { itDirect, PRISM } from './support/proxy';
import { statementsOf } from './support/statements';

type Phase = { id: string; code: string; description: string; jobId: string | null; jobCode: string | null; defaultGLCode: string | null };

describe('phases: batch upsert', () => {
  let org: TestOrg;
  let other: TestOrg;
  let job: { id: string; code: string };
  let foreignJob: { id: string; code: string };
  before(async () => {
    org = await newOrg();
    other = await newOrg();
    job = await insertJob(org, 'J-1042');
    await insertJob(org, 'J-1057');
    foreignJob = await insertJob(other, 'J-7777');
  });

  const phaseCount = async () => Number((await harness().db('phases').where({ organization_id: org.id }).count('* as n'))[0].n);

  it('creates global and job phases in input order, then updates them matched by code and job', async () => {
    const created = expectStatus(
      await org.api.post('/global-phases/batch', {
        inputs: [
          { code: '03-300', description: 'Concrete', defaultGLCode: '5100' },
          { code: '03-300', description: 'Podium concrete', jobCode: 'J-1042' },
          { code: '03-300', description: 'Deck concrete', jobId: job.id.toUpperCase().toLowerCase(), jobCode: 'J-1042', defaultGLCode: null },
        ].slice(0, 2),
      }),
      200,
    ).body as Phase[];
    expect(created.map((p) => [p.code, p.jobCode, p.description, p.defaultGLCode])).to.deep.equal([
      ['03-300', null, 'Concrete', '5100'],
      ['03-300', 'J-1042', 'Podium concrete', null],
    ]);
    expect(created[1].jobId).to.equal(job.id);

    const updated = expectStatus(
      await org.api.post('/global-phases/batch', {
        inputs: [
          { code: '03-300', description: 'Podium and ramp concrete', jobId: job.id, defaultGLCode: '5110' },
          { code: '03-300', description: 'Cast-in-place concrete' },
          { code: '03-300', description: 'Deck concrete', jobCode: 'J-1057' },
        ],
      }),
      200,
    ).body as Phase[];
    expect(updated[0]).to.include({ id: created[1].id, description: 'Podium and ramp concrete', defaultGLCode: '5110', jobCode: 'J-1042' });
    // defaultGLCode omitted: the stored value is kept.
    expect(updated[1]).to.include({ id: created[0].id, description: 'Cast-in-place concrete', defaultGLCode: '5100', jobCode: null });
    expect(updated[2]).to.include({ jobCode: 'J-1057', description: 'Deck concrete' });
    expect(await phaseCount()).to.equal(3);
    const read = expectStatus(await org.api.get('/global-phases/03-300?jobCode=J-1042'), 200).body as Phase;
    expect(read.description).to.equal('Podium and ramp concrete');
  });

  it('rejects an empty list and 1001 elements with the exact messages before examining elements', async () => {
    const empty = problemOf(await org.api.post('/global-phases/batch', { inputs: [] }), 400);
    expect(empty.errors[0].message).to.equal('Invalid input, list cannot be empty');
    const tooMany = Array.from({ length: 1001 }, () => ({ code: 'DUP', description: 'x', jobCode: 'J-NOPE' }));
    const big = problemOf(await org.api.post('/global-phases/batch', { inputs: tooMany }), 400);
    expect(big.errors[0].message).to.equal('Invalid input, list cannot be greater than 1000');
  });

  it('saves nothing when any element is invalid and names every bad position', async () => {
    const before = await phaseCount();
    const p = problemOf(
      await org.api.post('/global-phases/batch', {
        inputs: [
          { code: 'OK-1', description: 'fine' },
          { code: 'OK-2', description: 'bad job', jobCode: 'J-0000' },
          { code: 'OK-3', description: 'foreign job', jobId: foreignJob.id },
          { code: 'OK-4', description: 'disagreeing job', jobId: job.id, jobCode: 'J-1057' },
          { description: 'no code' },
          { code: 'OK-1', description: 'duplicate in the global scope' },
          { code: 'OK-1', description: 'same code, other scope: fine', jobCode: 'J-1042' },
          { code: 'OK-7', jobCode: 'J-1042' },
          { code: 'OK-8', description: 'not a job id', jobId: 'not-an-id' },
        ],
      }),
      400,
    );
    const lines = p.errors[0].message.split('\n');
    expect(lines.map((l) => l.replace(/:.*/, ''))).to.deep.equal([
      'Position 1',
      'Position 2',
      'Position 3',
      'Position 4',
      'Position 5',
      'Position 7',
      'Position 8',
    ]);
    expect(lines[0]).to.equal('Position 1: jobCode J-0000 does not match a job');
    expect(lines[2]).to.match(/^Position 3: .*different jobs/);
    expect(lines[3]).to.equal('Position 4: code is required');
    expect(lines[4]).to.match(/^Position 5: .*more than once.*position 0/);
    expect(lines[5]).to.equal('Position 7: description is required');
    expect(await phaseCount()).to.equal(before);
  });

  itDirect(
    'names the elements the schema rejects with those its own checks reject, one line per position, and saves nothing',
    PRISM.invalidRequest('a numeric jobId, a description too long, an unknown property'),
    async () => {
      const before = await phaseCount();
      const p = problemOf(
        await org.api.unchecked.post('/global-phases/batch', {
          inputs: [
            { code: 'SV-0', description: 'fine' },
            { code: 'SV-1', description: 'job id not a string', jobId: 42 },
            { code: 'SV-2', description: 'x'.repeat(1001), colour: 'red' },
            { code: 'SV-3', description: 'unknown job', jobCode: 'J-0000' },
            { description: 'no code' },
            { code: 'SV-0', description: 'duplicate of position 0' },
          ],
        }),
        400,
      );
      expect(p.errors).to.have.length(1);
      expect(p.errors[0].message.split('\n')).to.deep.equal([
        'Position 1: jobId: must be a string (rule type)',
        'Position 2: colour: unknown property colour (rule additionalProperties); description: must NOT have more than 1000 characters (rule maxLength)',
        'Position 3: jobCode J-0000 does not match a job',
        'Position 4: code is required',
        'Position 5: global code SV-0 appears more than once in the batch (first at position 0)',
      ]);
      expect(await phaseCount()).to.equal(before);
    },
  );

  it('reports the same code twice in one job scope as a position error, not a 500', async () => {
    const p = problemOf(
      await org.api.post('/global-phases/batch', {
        inputs: [
          { code: 'D-1', description: 'a', jobCode: 'J-1042' },
          { code: 'D-1', description: 'b', jobId: job.id },
        ],
      }),
      400,
    );
    expect(p.errors[0].message).to.match(/^Position 1: code D-1 of job J-1042 appears more than once/);
  });

  it('upserts 1000 elements in one request, then updates them all', async function () {
    this.timeout(20000);
    const inputs = Array.from({ length: 1000 }, (_, i) => ({
      code: `B-${String(i).padStart(4, '0')}`,
      description: `Bulk phase ${i}`,
      ...(i % 2 ? { jobCode: 'J-1057' } : {}),
    }));
    const first = expectStatus(await org.api.post('/global-phases/batch', { inputs }), 200).body as Phase[];
    expect(first).to.have.length(1000);
    expect(first.map((p) => p.code)).to.deep.equal(inputs.map((i) => i.code));
    expect(first[1].jobCode).to.equal('J-1057');
    // Quick by construction, not by the clock: set-based statements, never one per element.
    const { result, statements } = await statementsOf(() =>
      org.api.post('/global-phases/batch', { inputs: inputs.map((i) => ({ ...i, description: i.description + ' (rev)' })) }),
    );
    const second = expectStatus(result, 200).body as Phase[];
    expect(statements).to.be.below(50);
    expect(second.map((p) => p.id)).to.deep.equal(first.map((p) => p.id));
    expect(second[999].description).to.equal('Bulk phase 999 (rev)');
  });

  itDirect('validates element types through the contract', PRISM.invalidRequest('a numeric code, an unknown property, no inputs'), async () => {
    problemOf(await org.api.unchecked.post('/global-phases/batch', { inputs: [{ code: 1, description: 'x' }] }), 400);
    problemOf(await org.api.unchecked.post('/global-phases/batch', { inputs: [{ code: 'A', description: 'x', colour: 'red' }] }), 400);
    problemOf(await org.api.unchecked.post('/global-phases/batch', {}), 400);
  });
});
