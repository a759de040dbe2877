import type { DemoPart } from './context';
import { demoJobs } from './phases';

const GLOBAL: [string, string][] = [
  ['MAT', 'Materials'],
  ['LAB', 'Labor'],
  ['EQP', 'Equipment'],
  ['SUB', 'Subcontracts'],
  ['OTH', 'Other costs'],
];
const JOB_LEVEL: [string, string][] = [
  ['PRM', 'Permits and fees'],
  ['RNT', 'Rental equipment'],
];
const PHASE_LEVEL: [string, string][] = [
  ['MAT', 'Phase materials'],
  ['DLV', 'Delivery and pumping'],
];

/** Categories in all three scopes: global, job-level (each demo job), phase-level (its phases). */
export const seedCostCategories: DemoPart = async ({ db, orgId, remember }) => {
  const global = await db('cost_categories')
    .insert(GLOBAL.map(([code, description]) => ({ organization_id: orgId, code, description })))
    .returning(['id', 'code']);
  for (const c of global) remember('costCategory', c.code, c.id);

  for (const job of await demoJobs(db, orgId)) {
    const jobRows = await db('cost_categories')
      .insert(JOB_LEVEL.map(([code, description]) => ({ organization_id: orgId, job_id: job.id, code, description })))
      .returning(['id', 'code']);
    for (const c of jobRows) remember('costCategory', `${job.code}/${c.code}`, c.id);
    const phases = await db('phases').where({ organization_id: orgId, job_id: job.id }).whereNull('deleted_at').select('id', 'code');
    for (const phase of phases) {
      const rows = await db('cost_categories')
        .insert(PHASE_LEVEL.map(([code, description]) => ({ organization_id: orgId, job_id: job.id, phase_id: phase.id, code, description })))
        .returning(['id', 'code']);
      for (const c of rows) remember('costCategory', `${job.code}/${phase.code}/${c.code}`, c.id);
    }
  }
};
