import type { DemoPart } from './context';

/** Tags of every type, together using every listed color (and one without a color). */
export const seedTags: DemoPart = async ({ db, orgId, remember }) => {
  const rows: [string, string, string | null][] = [
    ['Long lead', 'ORDER', '#ff7875'],
    ['Backordered', 'ORDER', '#ff9c6e'],
    ['Awaiting submittal', 'ORDER', '#ffc069'],
    ['Owner furnished', 'ORDER', '#ffd666'],
    ['Cycle count', 'INVENTORY_ITEM', '#69b1ff'],
    ['Consumables', 'INVENTORY_ITEM', '#95de64'],
    ['Reorder point', 'INVENTORY_ITEM', '#5cdbd3'],
    ['Rush', 'REQUISITION', '#ff85c0'],
    ['Needs approval', 'REQUISITION', '#d3f261'],
    ['Calibration due', 'TOOL', '#b37feb'],
    ['Out for repair', 'TOOL', '#85a5ff'],
    ['Retired', 'TOOL', '#f0f0f0'],
    ['Rental return', 'TOOL', null],
  ];
  const inserted = await db('tags')
    .insert(rows.map(([title, type, color]) => ({ organization_id: orgId, title, type, color })))
    .returning(['id', 'title']);
  for (const t of inserted) remember('tag', t.title, t.id);
};
