import type { DemoPart } from './context';

export const seedUnitsOfMeasure: DemoPart = async ({ db, orgId, remember }) => {
  const rows = [
    { code: 'EA', description: 'Each', multiplier: 'E' },
    { code: 'LF', description: 'Linear foot', multiplier: 'E' },
    { code: 'SF', description: 'Square foot', multiplier: 'E' },
    { code: 'CY', description: 'Cubic yard', multiplier: 'E' },
    { code: 'BOX', description: 'Box', multiplier: 'E' },
    { code: 'C', description: 'Per hundred', multiplier: 'C' },
    { code: 'M', description: 'Per thousand', multiplier: 'M' },
  ];
  const inserted = await db('units_of_measure')
    .insert(rows.map((r) => ({ ...r, organization_id: orgId })))
    .returning(['id', 'code']);
  for (const r of inserted) remember('unitOfMeasure', r.code, r.id);
};
