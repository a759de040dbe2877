import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ResourceDef, allJson, oneByIdJson, oneJson, scoped, whereId } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { BomItemInput, WbsValue, mergeWbs } from './rules';

type BillOfMaterials = Schema<'BillOfMaterials'>;
type BillOfMaterialsItem = Schema<'BillOfMaterialsItem'>;

export const billsOfMaterials: ResourceDef = {
  table: 'bills_of_materials',
  alias: 'bom',
  columns: {
    id: idCol('bom.id'),
    jobId: idCol('bom.job_id'),
    createdAt: tsCol('bom.created_at'),
    updatedAt: tsCol('bom.updated_at'),
  },
};

export const bomItems: ResourceDef = {
  table: 'bill_of_materials_items',
  alias: 'bi',
  softDelete: true,
  columns: {
    id: idCol('bi.id'),
    billOfMaterialsId: idCol('bi.bill_of_materials_id'),
    catalogId: col('bi.catalog_id'),
    description: col('bi.description'),
    estimatedQuantity: col('bi.estimated_quantity'),
    mpn: col('bi.mpn'),
    unitOfMeasure: col('bi.unit_of_measure'),
    unitPrice: col('bi.unit_price'),
    upc: col('bi.upc'),
    workBreakdownStructureValues: expr('bi.work_breakdown_structure_values'),
    deletedAt: tsCol('bi.deleted_at'),
    createdAt: tsCol('bi.created_at'),
    updatedAt: tsCol('bi.updated_at'),
  },
};

export const getJobBom = (db: Queryable, orgId: string, jobId: string): Promise<Json<BillOfMaterials> | undefined> =>
  oneJson<BillOfMaterials>(db, billsOfMaterials, scoped(db, billsOfMaterials, orgId).where('bom.job_id', jobId));

/** Creates the job's bill of materials unless it has one; says whether it was created. */
export async function ensureJobBom(db: Queryable, orgId: string, jobId: string): Promise<{ created: boolean; bom: Json<BillOfMaterials> }> {
  const inserted = await db('bills_of_materials')
    .insert({ organization_id: orgId, job_id: jobId })
    .onConflict(['organization_id', 'job_id'])
    .ignore()
    .returning('id');
  return { created: inserted.length > 0, bom: (await getJobBom(db, orgId, jobId))! };
}

/** Items by ID in the given order. */
export function itemsInOrder(db: Queryable, orgId: string, ids: string[]): Promise<Json<BillOfMaterialsItem[]>> {
  const q = scoped(db, bomItems, orgId).whereRaw('bi.id = ANY(?::uuid[])', [ids]);
  return allJson<BillOfMaterialsItem>(db, bomItems, q, db.raw('array_position(?::uuid[], bi.id)', [ids]).toQuery());
}

const wbsOrEmpty = (v: WbsValue[] | null | undefined) => JSON.stringify(mergeWbs([], v));

export async function createItems(db: Queryable, orgId: string, bomId: string, inputs: BomItemInput[]): Promise<Json<BillOfMaterialsItem[]>> {
  const rows = await db('bill_of_materials_items')
    .insert(
      inputs.map((i) => ({
        organization_id: orgId,
        bill_of_materials_id: bomId,
        catalog_id: i.catalogId ?? null,
        description: i.description,
        estimated_quantity: i.estimatedQuantity,
        mpn: i.mpn ?? null,
        unit_of_measure: i.unitOfMeasure ?? 'EA',
        unit_price: i.unitPrice ?? null,
        upc: i.upc ?? null,
        work_breakdown_structure_values: wbsOrEmpty(i.workBreakdownStructureValues),
      })),
    )
    .returning('id');
  return itemsInOrder(
    db,
    orgId,
    rows.map((r: { id: string }) => r.id),
  );
}

interface StoredItem {
  id: string;
  catalog_id: string | null;
  description: string;
  estimated_quantity: number;
  mpn: string | null;
  unit_of_measure: string | null;
  unit_price: number | null;
  upc: string | null;
  work_breakdown_structure_values: WbsValue[];
}

/** The live items among `ids`, locked for the update that follows. */
export async function lockItems(db: Queryable, orgId: string, ids: string[]): Promise<Map<string, StoredItem>> {
  const rows: StoredItem[] = await db('bill_of_materials_items')
    .where('organization_id', orgId)
    .whereNull('deleted_at')
    .whereRaw('id = ANY(?::uuid[])', [ids])
    .forUpdate()
    .select('id', 'catalog_id', 'description', 'estimated_quantity', 'mpn', 'unit_of_measure', 'unit_price', 'upc', 'work_breakdown_structure_values');
  return new Map(rows.map((r) => [r.id, r]));
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Applies every change in one statement (the rows travel as one JSON parameter); items it would not change are left alone. */
export async function updateItems(db: Queryable, orgId: string, changes: { current: StoredItem; input: BomItemInput }[]): Promise<void> {
  const rows = changes.map(({ current: c, input: i }) => ({
    id: c.id,
    catalog_id: has(i, 'catalogId') ? i.catalogId : c.catalog_id,
    description: i.description ?? c.description,
    estimated_quantity: has(i, 'estimatedQuantity') ? i.estimatedQuantity : c.estimated_quantity,
    mpn: has(i, 'mpn') ? i.mpn : c.mpn,
    unit_of_measure: has(i, 'unitOfMeasure') ? i.unitOfMeasure : c.unit_of_measure,
    unit_price: has(i, 'unitPrice') ? i.unitPrice : c.unit_price,
    upc: has(i, 'upc') ? i.upc : c.upc,
    work_breakdown_structure_values: mergeWbs(c.work_breakdown_structure_values, i.workBreakdownStructureValues),
  }));
  await db.raw(
    `UPDATE bill_of_materials_items bi SET
       catalog_id = v.catalog_id, description = v.description, estimated_quantity = v.estimated_quantity,
       mpn = v.mpn, unit_of_measure = v.unit_of_measure, unit_price = v.unit_price, upc = v.upc,
       work_breakdown_structure_values = v.work_breakdown_structure_values, updated_at = now()
     FROM json_populate_recordset(NULL::bill_of_materials_items, ?::json) v
     WHERE bi.organization_id = ? AND bi.id = v.id
       -- An item the change leaves as it is stays untouched, updated_at included (src/feed/unchanged.ts).
       AND ROW(bi.catalog_id, bi.description, bi.estimated_quantity, bi.mpn, bi.unit_of_measure, bi.unit_price, bi.upc, bi.work_breakdown_structure_values)
           IS DISTINCT FROM ROW(v.catalog_id, v.description, v.estimated_quantity, v.mpn, v.unit_of_measure, v.unit_price, v.upc, v.work_breakdown_structure_values)`,
    [JSON.stringify(rows), orgId],
  );
}

export const getItem = (db: Queryable, orgId: string, id: string, includeDeleted = false): Promise<Json<BillOfMaterialsItem> | undefined> =>
  oneByIdJson<BillOfMaterialsItem>(db, bomItems, orgId, id, { includeDeleted });

/** Soft-deletes a live item and drops its WBS values; undefined when there is none. */
export async function deleteItem(db: Queryable, orgId: string, id: string): Promise<Json<BillOfMaterialsItem> | undefined> {
  const q = whereId(scoped(db, bomItems, orgId), bomItems, id);
  const n = await db('bill_of_materials_items')
    .whereIn('id', q.clone().select('bi.id'))
    // Checked again after a concurrent deletion's commit (the subquery is not): deleted once.
    .whereNull('deleted_at')
    .update({ deleted_at: db.fn.now(), updated_at: db.fn.now(), work_breakdown_structure_values: '[]' });
  if (!n) return undefined;
  return getItem(db, orgId, id, true);
}
