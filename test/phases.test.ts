import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { insertJob } from './support/org-fixtures';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';

type Phase = {
  id: string;
  code: string;
  description: string;
  jobId: string | null;
  jobCode: string | null;
  defaultGLCode: string | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

describe('phases', () => {
  let org: TestOrg;
  let other: TestOrg;
  let job: { id: string; code: string };
  let job2: { id: string; code: string };
  before(async () => {
    org = await newOrg();
    other = await newOrg();
    job = await insertJob(org, 'J-1042', 'Riverside Medical Office Building');
    job2 = await insertJob(org, 'J-1057', 'Harbor Point Parking Structure');
    expectStatus(await org.api.post('/global-phases', { code: '01-000', description: 'General requirements' }), 201);
    expectStatus(await org.api.post('/global-phases', { code: '03-300', description: 'Cast-in-place concrete', defaultGLCode: '5100-CONC' }), 201);
    expectStatus(await org.api.post('/jobs/J-1042/phases', { code: '03-300', description: 'Podium concrete' }), 201);
    expectStatus(await org.api.post(`/jobs/${job2.id}/phases`, { code: '26-100', description: 'Temporary power', defaultGLCode: '6200-ELEC' }), 201);
  });

  it('creates global phases with jobId/jobCode null and defaultGLCode defaulting to null', async () => {
    const p = expectStatus(await org.api.post('/global-phases', { code: '09-900', description: 'Painting' }), 201).body as Phase;
    expect(p).to.include({ code: '09-900', description: 'Painting', jobId: null, jobCode: null, defaultGLCode: null, deletedAt: null });
    expect(p.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  itDirect('requires a description', PRISM.invalidRequest('a phase without description'), async () => {
    problemOf(await org.api.unchecked.post('/global-phases', { code: 'X' }), 400);
  });

  it('creates job phases flattened to jobId/jobCode', async () => {
    const p = expectStatus(await org.api.post('/jobs/J-1042/phases', { code: '05-100', description: 'Structural steel', defaultGLCode: '5300-STL' }), 201)
      .body as Phase;
    expect(p).to.include({ code: '05-100', jobId: job.id, jobCode: 'J-1042', defaultGLCode: '5300-STL' });
    problemOf(await org.api.post('/jobs/J-0000/phases', { code: '05-100', description: 'x' }), 404);
  });

  it('keeps codes unique per scope: 409 within one scope, allowed across scopes', async () => {
    const p = problemOf(await org.api.post('/global-phases', { code: '03-300', description: 'dup' }), 409);
    expect(p.errors[0]).to.include({ field: 'body.code', rule: 'unique' });
    problemOf(await org.api.post('/jobs/J-1042/phases', { code: '03-300', description: 'dup' }), 409);
    expectStatus(await org.api.post('/jobs/J-1057/phases', { code: '03-300', description: 'Deck concrete' }), 201);
    problemOf(await org.api.patch('/global-phases/01-000', { code: '03-300' }), 409);
    problemOf(await org.api.patch('/jobs/J-1042/phases/05-100', { code: '03-300' }), 409);
  });

  it("lists global phases, all job phases, and one job's phases, ordered by createdAt by default", async () => {
    const global = expectStatus(await org.api.get('/global-phases'), 200).body as Phase[];
    expect(global.every((p) => p.jobId === null)).to.equal(true);
    expect(global.map((p) => p.code).slice(0, 2)).to.deep.equal(['01-000', '03-300']);
    const created = global.map((p) => p.createdAt);
    expect(created).to.deep.equal([...created].sort());
    const all = expectStatus(await org.api.get('/job-phases?limit=1000'), 200).body as Phase[];
    expect(all.every((p) => p.jobId !== null)).to.equal(true);
    expect(all.map((p) => p.jobCode)).to.include.members(['J-1042', 'J-1057']);
    const ofJob = expectStatus(await org.api.get('/jobs/J-1057/phases?orderBy=code&direction=DESC'), 200).body as Phase[];
    expect(ofJob.map((p) => p.code)).to.deep.equal(['26-100', '03-300']);
    expect(ofJob.every((p) => p.jobCode === 'J-1057')).to.equal(true);
    problemOf(await org.api.get('/jobs/NOPE/phases'), 404);
  });

  it('filters and orders on the allowed fields only', async () => {
    const f = expectStatus(await org.api.get('/global-phases?filter[description_contains]=CONCRETE'), 200).body as Phase[];
    expect(f.map((p) => p.code)).to.deep.equal(['03-300']);
    const byCode = expectStatus(await org.api.get('/job-phases?filter[code_in]=26-100,05-100&orderBy=code'), 200).body as Phase[];
    expect(byCode.map((p) => p.code)).to.deep.equal(['05-100', '26-100']);
    problemOf(await org.api.get('/global-phases?filter[jobCode]=J-1042'), 400);
    problemOf(await org.api.get('/job-phases?filter[jobCode]=J-1042'), 400);
  });

  itDirect('rejects the job fields as orderBy', PRISM.invalidRequest('orderBy=jobCode'), async () => {
    problemOf(await org.api.get('/global-phases?orderBy=jobCode'), 400);
    problemOf(await org.api.get('/job-phases?orderBy=jobCode'), 400);
  });

  it('reads a global phase by code or id, and a job phase with jobCode', async () => {
    const g = expectStatus(await org.api.get('/global-phases/03-300'), 200).body as Phase;
    expect(g).to.include({ code: '03-300', description: 'Cast-in-place concrete', jobId: null, defaultGLCode: '5100-CONC' });
    expect(expectStatus(await org.api.get(`/global-phases/${g.id}`), 200).body).to.deep.equal(g);
    const j = expectStatus(await org.api.get('/global-phases/03-300?jobCode=J-1042'), 200).body as Phase;
    expect(j).to.include({ code: '03-300', description: 'Podium concrete', jobId: job.id, jobCode: 'J-1042' });
    problemOf(await org.api.get('/global-phases/26-100'), 404);
    expect(expectStatus(await org.api.get('/global-phases/26-100?jobCode=J-1057'), 200).body.jobCode).to.equal('J-1057');
    problemOf(await org.api.get('/global-phases/03-300?jobCode=J-0000'), 404);
  });

  it('reads, updates and deletes job phases through the job path; a phase of another job is 404', async () => {
    const p = expectStatus(await org.api.get('/jobs/J-1057/phases/26-100'), 200).body as Phase;
    expect(p).to.include({ jobId: job2.id, defaultGLCode: '6200-ELEC' });
    problemOf(await org.api.get(`/jobs/J-1042/phases/${p.id}`), 404);
    const u = expectStatus(await org.api.patch(`/jobs/${job2.id}/phases/${p.id}`, { description: 'Temporary power and lighting', defaultGLCode: null }), 200)
      .body as Phase;
    expect(u).to.include({ id: p.id, code: '26-100', description: 'Temporary power and lighting', defaultGLCode: null });
    const d = expectStatus(await org.api.delete('/jobs/J-1057/phases/26-100'), 200).body as Phase;
    expect(d.id).to.equal(p.id);
    expect(d.deletedAt).to.match(/Z$/);
    problemOf(await org.api.get('/jobs/J-1057/phases/26-100'), 404);
    expectStatus(await org.api.post('/jobs/J-1057/phases', { code: '26-100', description: 'Again' }), 201);
  });

  it('updates a global phase and renames it', async () => {
    const created = expectStatus(await org.api.post('/global-phases', { code: '31-000', description: 'Earthwork' }), 201).body as Phase;
    const u = expectStatus(await org.api.patch('/global-phases/31-000', { code: '31-200', defaultGLCode: '5000-SITE' }), 200).body as Phase;
    expect(u).to.include({ id: created.id, code: '31-200', description: 'Earthwork', defaultGLCode: '5000-SITE' });
    problemOf(await org.api.get('/global-phases/31-000'), 404);
  });

  itDirect('rejects an empty update', PRISM.invalidRequest('an empty PATCH body'), async () => {
    problemOf(await org.api.patch('/global-phases/09-900', {}), 400);
  });

  it('soft-deletes by id, returning deletedAt, and frees the code', async () => {
    const created = expectStatus(await org.api.post('/global-phases', { code: '99-DEL', description: 'Delete me' }), 201).body as Phase;
    const d = expectStatus(await org.api.delete(`/global-phases/${created.id}`), 200).body as Phase;
    expect(d).to.include({ id: created.id, code: '99-DEL' });
    expect(d.deletedAt).to.match(/^\d{4}-.*Z$/);
    problemOf(await org.api.get(`/global-phases/${created.id}`), 404);
    problemOf(await org.api.delete(`/global-phases/${created.id}`), 404);
    expect(expectStatus(await org.api.get('/global-phases?filter[code]=99-DEL'), 200).body).to.deep.equal([]);
    expectStatus(await org.api.post('/global-phases', { code: '99-DEL', description: 'Again' }), 201);
  });

  it("answers another organization's phases and jobs like missing ones", async () => {
    const g = expectStatus(await org.api.get('/global-phases/03-300'), 200).body as Phase;
    const jp = expectStatus(await org.api.get('/jobs/J-1042/phases/03-300'), 200).body as Phase;
    await expectForeignLikeMissing(other, 'GET', `/global-phases/${g.id}`, `/global-phases/${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'PATCH', `/global-phases/${g.id}`, `/global-phases/${MISSING_ID}`, { description: 'x' });
    await expectForeignLikeMissing(other, 'DELETE', `/global-phases/${g.id}`, `/global-phases/${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/phases`, `/jobs/${MISSING_ID}/phases`);
    await expectForeignLikeMissing(other, 'POST', `/jobs/${job.id}/phases`, `/jobs/${MISSING_ID}/phases`, { code: 'X', description: 'x' });
    await expectForeignLikeMissing(other, 'GET', `/jobs/${job.id}/phases/${jp.id}`, `/jobs/${MISSING_ID}/phases/${MISSING_ID}`);
    await expectForeignLikeMissing(other, 'PATCH', `/jobs/${job.id}/phases/${jp.id}`, `/jobs/${MISSING_ID}/phases/${MISSING_ID}`, { description: 'x' });
    await expectForeignLikeMissing(other, 'DELETE', `/jobs/${job.id}/phases/${jp.id}`, `/jobs/${MISSING_ID}/phases/${MISSING_ID}`);
    expect(expectStatus(await other.api.get('/job-phases'), 200).body).to.deep.equal([]);
    expect(expectStatus(await other.api.get('/global-phases'), 200).body).to.deep.equal([]);
  });
});
