import type { DemoPart } from './context';

/** The demo jobs, whatever the jobs part created (looked up rather than referenced by code). */
export async function demoJobs(db: Parameters<DemoPart>[0]['db'], orgId: string): Promise<{ id: string; code: string }[]> {
  return db('jobs').where({ organization_id: orgId }).orderBy('code').limit(3).select('id', 'code');
}

const GLOBAL_PHASES: [string, string, string | null][] = [
  ['01-000', 'General requirements', '5000-GEN'],
  ['03-300', 'Cast-in-place concrete', '5100-CONC'],
  ['05-100', 'Structural steel framing', '5300-STL'],
  ['09-200', 'Gypsum board assemblies', null],
  ['22-000', 'Plumbing', '5600-PLMB'],
  ['26-000', 'Electrical', '5700-ELEC'],
];

const JOB_PHASES: [string, string, string | null][] = [
  ['03-300', 'Podium slab and ramp concrete', '5100-CONC'],
  ['26-050', 'Temporary power and lighting', '5700-ELEC'],
  ['31-200', 'Excavation and backfill', null],
];

export const seedPhases: DemoPart = async ({ db, orgId, remember }) => {
  const global = await db('phases')
    .insert(GLOBAL_PHASES.map(([code, description, gl]) => ({ organization_id: orgId, code, description, default_gl_code: gl })))
    .returning(['id', 'code']);
  for (const p of global) remember('phase', p.code, p.id);
  // A retired phase, soft-deleted.
  await db('phases').insert({ organization_id: orgId, code: '02-400', description: 'Hazardous material abatement (retired)', deleted_at: db.fn.now() });

  for (const job of await demoJobs(db, orgId)) {
    const rows = await db('phases')
      .insert(JOB_PHASES.map(([code, description, gl]) => ({ organization_id: orgId, job_id: job.id, code, description, default_gl_code: gl })))
      .returning(['id', 'code']);
    for (const p of rows) remember('phase', `${job.code}/${p.code}`, p.id);
  }
};
