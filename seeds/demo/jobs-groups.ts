import type { DemoPart } from './context';

/** Groups, and jobs (OPEN and CLOSED) with default locations, tax codes, attached locations and users. */
export const seedJobsAndGroups: DemoPart = async ({ db, orgId, userId, remember, ref }) => {
  const groups = await db('groups')
    .insert(
      [
        { code: 'NORCAL', name: 'Northern California projects' },
        { code: 'HEALTH', name: 'Healthcare' },
        { code: 'PUBLIC', name: 'Public works' },
      ].map((g) => ({ ...g, organization_id: orgId, created_by_id: userId })),
    )
    .returning(['id', 'code']);
  const group = (code: string) => groups.find((g) => g.code === code)!.id;
  for (const g of groups) remember('group', g.code, g.id);

  const jobs = [
    {
      code: 'J-1042',
      name: 'Riverside Medical Office Building',
      state: 'OPEN',
      start_date: '2026-02-01T00:00:00.000Z',
      location: 'Riverside MOB jobsite',
      tax: 'TX-CA',
      counter: 1051,
      groups: ['NORCAL', 'HEALTH'],
      extra: ['Rancho Cordova warehouse'],
    },
    {
      code: 'J-1077',
      name: 'Elk Grove Distribution Center',
      state: 'OPEN',
      start_date: '2026-10-01T00:00:00.000Z',
      location: 'Elk Grove DC jobsite',
      tax: 'TX-CA',
      counter: 1,
      groups: ['NORCAL'],
      extra: ['Equipment laydown lot'],
    },
    {
      code: 'J-1103',
      name: 'Natomas Fire Station 44',
      state: 'OPEN',
      start_date: null,
      location: 'Natomas Fire Station 44 jobsite',
      tax: null,
      counter: 1,
      groups: ['PUBLIC'],
      extra: [],
    },
    {
      code: 'J-0987',
      name: 'Folsom Elementary School Modernization',
      state: 'CLOSED',
      start_date: '2025-06-16T00:00:00.000Z',
      location: 'Folsom Elementary jobsite',
      tax: 'TX-CA',
      counter: 214,
      groups: ['NORCAL', 'PUBLIC'],
      extra: [],
    },
    {
      code: 'J-0950',
      name: 'Reno Tenant Improvement (cancelled)',
      state: 'CLOSED',
      start_date: null,
      location: null,
      tax: 'TX-NV',
      counter: 1,
      groups: [],
      extra: [],
    },
  ];
  const rows = await db('jobs')
    .insert(
      jobs.map((j) => ({
        organization_id: orgId,
        code: j.code,
        name: j.name,
        state: j.state,
        start_date: j.start_date,
        default_location_id: j.location ? ref('location', j.location) : null,
        default_tax_code_id: j.tax ? ref('taxCode', j.tax) : null,
        next_po_counter: j.counter,
      })),
    )
    .returning(['id', 'code']);
  const jobId = (code: string) => rows.find((r) => r.code === code)!.id;
  for (const r of rows) remember('job', r.code, r.id);

  await db('job_locations').insert(
    jobs.flatMap((j) =>
      [...(j.location ? [j.location] : []), ...j.extra].map((name) => ({ organization_id: orgId, job_id: jobId(j.code), location_id: ref('location', name) })),
    ),
  );
  await db('job_groups').insert(jobs.flatMap((j) => j.groups.map((g) => ({ organization_id: orgId, job_id: jobId(j.code), group_id: group(g) }))));
  // Field staff on the open jobs, the procurement lead on every job.
  const crew = ['maria.chen@summitridge.example', 'dev.patel@summitridge.example'].map((email) => ref('user', email));
  const lead = ref('user', 'jordan.kim@summitridge.example');
  await db('job_users').insert(
    jobs.flatMap((j) => [...(j.state === 'OPEN' ? crew : []), lead].map((user_id) => ({ organization_id: orgId, job_id: jobId(j.code), user_id }))),
  );
};
