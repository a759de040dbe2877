import type { DemoPart } from './context';

export const seedTaxCodes: DemoPart = async ({ db, orgId, remember }) => {
  const rows = [
    { code: 'TX-CA', description: 'California state sales tax', tax_percent: 0.0725, tax_type: 'SALES' },
    { code: 'TX-LA-CITY', description: 'Los Angeles city and county sales tax', tax_percent: 0.095, tax_type: 'SALES' },
    { code: 'TX-NV', description: 'Nevada state sales tax', tax_percent: 0.0685, tax_type: 'SALES' },
    { code: 'TX-USE-CA', description: 'California use tax on out-of-state purchases', tax_percent: 0.0725, tax_type: 'USE' },
    { code: 'TX-EXEMPT', description: 'Tax exempt (resale certificate on file)', tax_percent: 0, tax_type: 'SALES' },
  ];
  const inserted = await db('tax_codes')
    .insert(rows.map((r) => ({ ...r, organization_id: orgId })))
    .returning(['id', 'code']);
  for (const r of inserted) remember('taxCode', r.code, r.id);
  // A retired code, soft-deleted, so includeDeleted and code reuse have something to show.
  await db('tax_codes').insert({
    organization_id: orgId,
    code: 'TX-AZ-OLD',
    description: 'Arizona transaction privilege tax (retired rate)',
    tax_percent: 0.056,
    tax_type: 'SALES',
    deleted_at: db.fn.now(),
  });
};
