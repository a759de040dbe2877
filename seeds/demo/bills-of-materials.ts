import type { DemoPart } from './context';
import { demoJobId } from './purchasing-refs';

/** Job J-1042's bill of materials, its items classified with every enriched WBS structure type. */
export const seedBillsOfMaterials: DemoPart = async (ctx) => {
  const { db, orgId, remember } = ctx;
  const [bom] = await db('bills_of_materials')
    .insert({ organization_id: orgId, job_id: await demoJobId(ctx) })
    .returning('id');
  remember('billOfMaterials', 'J-1042', bom.id);
  const wbs = (...pairs: [string, string][]) => JSON.stringify(pairs.map(([structureType, value]) => ({ structureType, value })));
  await db('bill_of_materials_items').insert(
    [
      {
        description: '3/4 in. EMT conduit, 10 ft sticks',
        estimated_quantity: 2400,
        unit_of_measure: 'LF',
        unit_price: 0.62,
        mpn: '101543',
        upc: '786776101547',
        work_breakdown_structure_values: wbs(['Floor', 'Level 2'], ['Cost Code', '26-0533'], ['System', 'Power']),
      },
      {
        description: '4 in. square box, 2-1/8 in. deep',
        estimated_quantity: 180,
        unit_of_measure: 'EA',
        unit_price: 3.15,
        mpn: '52171-K',
        work_breakdown_structure_values: wbs(['Floor', 'Level 2'], ['Phase', 'Rough-in'], ['Phase Code', '02-ROUGH']),
      },
      {
        description: '2x4 LED troffer, 4000K',
        estimated_quantity: 72,
        unit_of_measure: 'EA',
        unit_price: 89.5,
        work_breakdown_structure_values: wbs(['Section', 'East wing'], ['System', 'Lighting']),
      },
      {
        description: 'Fire-stop sealant, 10.1 oz',
        estimated_quantity: 40,
        unit_of_measure: 'EA',
        unit_price: null,
        catalog_id: 'CAT-3M-FD150',
        work_breakdown_structure_values: '[]',
      },
    ].map((r) => ({ ...r, organization_id: orgId, bill_of_materials_id: bom.id })),
  );
};
