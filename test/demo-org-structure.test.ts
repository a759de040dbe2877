import { expect } from 'chai';
import { expectStatus, newOrg, TestOrg, PathOf } from './support/client';
import { harness } from './support/harness';
import { insertJob } from './support/org-fixtures';
import { loadDemoData } from '../seeds/demo';

describe('demo data: users, phases, cost categories, tags', () => {
  let org: TestOrg;
  before(async function () {
    this.timeout(30000);
    org = await newOrg();
    // Whatever jobs the jobs part creates, the phase and category parts attach to the existing jobs.
    await insertJob(org, 'T-DEMO-1', 'Demo fixture job');
    await loadDemoData(harness().db, org.id);
  });

  const all = async (path: PathOf<'get'>) => expectStatus(await org.api.get(`${path}?limit=1000`), 200).body as Record<string, unknown>[];

  it('has users of every role', async () => {
    const roles = new Set((await all('/users')).map((u) => u.role));
    expect([...roles]).to.include.members(['BackOffice', 'Field', 'FieldOrdering', 'Procurement', 'Warehouse']);
  });

  it('has global and job phases, and categories in all three scopes', async () => {
    expect(await all('/global-phases')).to.have.length.greaterThan(3);
    const jobPhases = await all('/job-phases');
    expect(jobPhases.length).to.be.greaterThan(0);
    expect(jobPhases.every((p) => typeof p.jobCode === 'string')).to.equal(true);
    expect(await all('/global-categories')).to.have.length.greaterThan(0);
    expect(await all('/job-categories')).to.have.length.greaterThan(0);
    const phaseLevel = await all('/phase-categories');
    expect(phaseLevel.length).to.be.greaterThan(0);
    expect(phaseLevel.every((c) => typeof c.phaseCode === 'string' && typeof c.jobCode === 'string')).to.equal(true);
  });

  it('has tags of every type and every color', async () => {
    const tags = await all('/tags');
    expect(new Set(tags.map((t) => t.type))).to.have.all.keys('ORDER', 'INVENTORY_ITEM', 'REQUISITION', 'TOOL');
    expect(new Set(tags.map((t) => t.color)).size).to.equal(13);
  });
});
