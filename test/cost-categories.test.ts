import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { insertJob } from './support/org-fixtures';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';

type Category = {
  id: string;
  code: string;
  description: string;
  jobId: string | null;
  jobCode: string | null;
  phaseId: string | null;
  phaseCode: string | null;
  job: { id: string; code: string } | null;
  phase: { id: string; code: string } | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

const keys = ['id', 'createdAt', 'code', 'description', 'updatedAt', 'jobId', 'jobCode', 'phaseId', 'phaseCode', 'job', 'phase', 'deletedAt'];

describe('cost categories', () => {
  let org: TestOrg;
  let other: TestOrg;
  let job: { id: string; code: string };
  let phase: { id: string };
  let otherJobPhase: { id: string };
  before(async () => {
    org = await newOrg();
    other = await newOrg();
    job = await insertJob(org, 'J-1042');
    await insertJob(org, 'J-1057');
    phase = expectStatus(await org.api.post('/jobs/J-1042/phases', { code: '03-300', description: 'Concrete' }), 201).body;
    otherJobPhase = expectStatus(await org.api.post('/jobs/J-1057/phases', { code: '26-100', description: 'Power' }), 201).body;
    expectStatus(await org.api.post('/global-categories', { code: 'MAT', description: 'Materials' }), 201);
    expectStatus(await org.api.post('/global-categories', { code: 'LAB', description: 'Labor' }), 201);
    expectStatus(await org.api.post('/jobs/J-1042/categories', { code: 'MAT', description: 'Job materials' }), 201);
    expectStatus(await org.api.post('/jobs/J-1042/phases/03-300/categories', { code: 'MAT', description: 'Concrete materials' }), 201);
    expectStatus(await org.api.post('/jobs/J-1057/phases/26-100/categories', { code: 'EQ', description: 'Equipment rental' }), 201);
  });

  it('creates categories in the three scopes with the scope fields set or null', async () => {
    const g = expectStatus(await org.api.post('/global-categories', { code: 'SUB', description: 'Subcontracts' }), 201).body as Category;
    expect(Object.keys(g)).to.have.members(keys);
    expect(g).to.include({ code: 'SUB', description: 'Subcontracts', jobId: null, jobCode: null, phaseId: null, phaseCode: null, deletedAt: null });
    const j = expectStatus(await org.api.post(`/jobs/${job.id}/categories`, { code: 'SUB', description: 'Job subcontracts' }), 201).body as Category;
    expect(j).to.include({ jobId: job.id, jobCode: 'J-1042', phaseId: null, phaseCode: null });
    const p = expectStatus(await org.api.post(`/jobs/J-1042/phases/${phase.id}/categories`, { code: 'SUB', description: 'Concrete subcontract' }), 201)
      .body as Category;
    expect(p).to.include({ jobId: job.id, jobCode: 'J-1042', phaseId: phase.id, phaseCode: '03-300' });
    // The spec's job.id/job.code and phase.id/phase.code, as objects (null where not applicable).
    expect([g, j, p].map((c) => [c.job, c.phase])).to.deep.equal([
      [null, null],
      [{ id: job.id, code: 'J-1042' }, null],
      [
        { id: job.id, code: 'J-1042' },
        { id: phase.id, code: '03-300' },
      ],
    ]);
  });

  itDirect('requires a description', PRISM.invalidRequest('a category without description'), async () => {
    problemOf(await org.api.unchecked.post('/global-categories', { code: 'X' }), 400);
  });

  it('keeps codes unique per scope (409) and allows the same code in other scopes', async () => {
    expect(problemOf(await org.api.post('/global-categories', { code: 'MAT', description: 'dup' }), 409).errors[0]).to.include({ field: 'body.code' });
    problemOf(await org.api.post('/jobs/J-1042/categories', { code: 'MAT', description: 'dup' }), 409);
    problemOf(await org.api.post('/jobs/J-1042/phases/03-300/categories', { code: 'MAT', description: 'dup' }), 409);
    expectStatus(await org.api.post('/jobs/J-1057/categories', { code: 'MAT', description: 'Other job materials' }), 201);
    problemOf(await org.api.patch('/global-categories/LAB', { code: 'MAT' }), 409);
  });

  it('lists each scope: global, all job-level, all phase-level, one job, one phase', async () => {
    const global = expectStatus(await org.api.get('/global-categories'), 200).body as Category[];
    expect(global.every((c) => c.jobId === null && c.phaseId === null)).to.equal(true);
    expect(global.map((c) => c.code).slice(0, 2)).to.deep.equal(['MAT', 'LAB']);
    const jobLevel = expectStatus(await org.api.get('/job-categories?orderBy=code'), 200).body as Category[];
    expect(jobLevel.every((c) => c.jobId !== null && c.phaseId === null)).to.equal(true);
    expect(jobLevel.map((c) => c.jobCode)).to.include.members(['J-1042', 'J-1057']);
    const phaseLevel = expectStatus(await org.api.get('/phase-categories?orderBy=code'), 200).body as Category[];
    expect(phaseLevel.every((c) => c.phaseId !== null && c.jobId !== null)).to.equal(true);
    expect(phaseLevel.map((c) => c.phaseCode)).to.include.members(['03-300', '26-100']);
    const ofJob = expectStatus(await org.api.get('/jobs/J-1042/categories?orderBy=code'), 200).body as Category[];
    expect(ofJob.every((c) => c.jobCode === 'J-1042' && c.phaseId === null)).to.equal(true);
    const ofPhase = expectStatus(await org.api.get('/jobs/J-1042/phases/03-300/categories?filter[code]=MAT'), 200).body as Category[];
    expect(ofPhase.map((c) => [c.code, c.description, c.phaseId])).to.deep.equal([['MAT', 'Concrete materials', phase.id]]);
    problemOf(await org.api.get('/global-categories?filter[jobId]=x'), 400);
    problemOf(await org.api.get('/job-categories?filter[jobCode]=J-1042'), 400);
    problemOf(await org.api.get('/phase-categories?filter[phaseCode]=03-300'), 400);
  });

  itDirect('rejects the scope fields as orderBy', PRISM.invalidRequest('orderBy=jobCode and orderBy=phaseCode, which the contract does not list'), async () => {
    problemOf(await org.api.get('/job-categories?orderBy=jobCode'), 400);
    problemOf(await org.api.get('/phase-categories?orderBy=phaseCode'), 400);
  });

  it('requires the phase in the path to belong to the job in the path', async () => {
    problemOf(await org.api.get(`/jobs/J-1042/phases/${otherJobPhase.id}/categories`), 404);
    problemOf(await org.api.post('/jobs/J-1042/phases/26-100/categories', { code: 'Z', description: 'z' }), 404);
    problemOf(await org.api.get('/jobs/J-1042/phases/26-100/categories/EQ'), 404);
    expectStatus(await org.api.get('/jobs/J-1057/phases/26-100/categories/EQ'), 200);
    problemOf(await org.api.get('/jobs/J-0000/categories'), 404);
  });

  it('reads, updates and deletes in each scope, by code or id, only within the scope', async () => {
    const g = expectStatus(await org.api.get('/global-categories/MAT'), 200).body as Category;
    expect(g.description).to.equal('Materials');
    expect(expectStatus(await org.api.get(`/global-categories/${g.id}`), 200).body).to.deep.equal(g);
    const jc = expectStatus(await org.api.get('/jobs/J-1042/categories/MAT'), 200).body as Category;
    expect(jc.description).to.equal('Job materials');
    problemOf(await org.api.get(`/global-categories/${jc.id}`), 404);
    problemOf(await org.api.get(`/jobs/J-1057/categories/${jc.id}`), 404);
    const pc = expectStatus(await org.api.get('/jobs/J-1042/phases/03-300/categories/MAT'), 200).body as Category;
    expect(pc.description).to.equal('Concrete materials');
    problemOf(await org.api.get(`/jobs/J-1042/categories/${pc.id}`), 404);

    expect(expectStatus(await org.api.patch('/global-categories/LAB', { description: 'Field labor' }), 200).body).to.include({
      code: 'LAB',
      description: 'Field labor',
    });
    expect(expectStatus(await org.api.patch(`/jobs/J-1042/categories/${jc.id}`, { description: 'Job materials and supplies' }), 200).body).to.include({
      id: jc.id,
      description: 'Job materials and supplies',
      jobCode: 'J-1042',
    });
    expect(expectStatus(await org.api.patch('/jobs/J-1042/phases/03-300/categories/MAT', { code: 'MAT-C', description: 'Concrete mix' }), 200).body).to.include(
      {
        id: pc.id,
        code: 'MAT-C',
        description: 'Concrete mix',
        phaseCode: '03-300',
      },
    );

    for (const [path, id] of [
      [`/jobs/J-1042/phases/03-300/categories/${pc.id}`, pc.id],
      [`/jobs/${job.id}/categories/${jc.id}`, jc.id],
    ] as const) {
      const d = expectStatus(await org.api.delete(path), 200).body as Category;
      expect(d.id).to.equal(id);
      expect(d.deletedAt).to.match(/Z$/);
      expect(d.jobId).to.equal(job.id);
      problemOf(await org.api.get(path), 404);
    }
    const dg = expectStatus(await org.api.post('/global-categories', { code: 'TMP', description: 'Temporary' }), 201).body as Category;
    const deleted = expectStatus(await org.api.delete(`/global-categories/${dg.id}`), 200).body as Category;
    expect(deleted).to.include({ id: dg.id, jobId: null, phaseId: null });
    expect(deleted.deletedAt).to.match(/Z$/);
    problemOf(await org.api.delete(`/global-categories/${dg.id}`), 404);
    expectStatus(await org.api.post('/global-categories', { code: 'TMP', description: 'Temporary again' }), 201);
  });

  itDirect('rejects an empty update', PRISM.invalidRequest('an empty PATCH body'), async () => {
    problemOf(await org.api.patch('/global-categories/LAB', {}), 400);
  });

  it("answers another organization's categories, jobs and phases like missing ones", async () => {
    const g = expectStatus(await org.api.post('/global-categories', { code: 'TEN', description: 'Tenancy' }), 201).body as Category;
    const j = expectStatus(await org.api.post('/jobs/J-1042/categories', { code: 'TEN', description: 'Tenancy' }), 201).body as Category;
    const p = expectStatus(await org.api.post('/jobs/J-1042/phases/03-300/categories', { code: 'TEN', description: 'Tenancy' }), 201).body as Category;
    const M = MISSING_ID;
    for (const [method, body] of [['GET'], ['PATCH', { description: 'x' }], ['DELETE']] as [string, unknown?][]) {
      await expectForeignLikeMissing(other, method, `/global-categories/${g.id}`, `/global-categories/${M}`, body);
      await expectForeignLikeMissing(other, method, `/jobs/${job.id}/categories/${j.id}`, `/jobs/${M}/categories/${M}`, body);
      await expectForeignLikeMissing(other, method, `/jobs/${job.id}/phases/${phase.id}/categories/${p.id}`, `/jobs/${M}/phases/${M}/categories/${M}`, body);
    }
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/categories`, `/jobs/${M}/categories`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${job.id}/categories`, `/jobs/${M}/categories`, { code: 'X', description: 'x' });
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/phases/${phase.id}/categories`, `/jobs/${M}/phases/${M}/categories`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${job.id}/phases/${phase.id}/categories`, `/jobs/${M}/phases/${M}/categories`, {
      code: 'X',
      description: 'x',
    });
    for (const list of ['/global-categories', '/job-categories', '/phase-categories'] as const) {
      expect(expectStatus(await other.api.get(list), 200).body).to.deep.equal([]);
    }
  });
});
