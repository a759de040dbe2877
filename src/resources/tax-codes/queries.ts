import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneByIdOrCodeJson, oneJson, resolveId, scoped, whereId } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';

type TaxCode = Schema<'TaxCode'>;

export const taxCodes: ResourceDef = {
  table: 'tax_codes',
  alias: 't',
  codeColumn: 't.code',
  softDelete: true,
  columns: {
    id: idCol('t.id'),
    code: col('t.code'),
    description: col('t.description'),
    taxPercent: col('t.tax_percent'),
    taxType: col('t.tax_type'),
    deletedAt: tsCol('t.deleted_at'),
    createdAt: tsCol('t.created_at'),
    updatedAt: tsCol('t.updated_at'),
  },
};

export interface TaxCodeChanges {
  code?: string;
  description?: string;
  taxPercent?: number;
  taxType?: 'SALES' | 'USE';
}

const toRow = (c: TaxCodeChanges) => ({
  code: c.code,
  description: c.description,
  tax_percent: c.taxPercent,
  tax_type: c.taxType,
});

export const listTaxCodes = (db: Queryable, orgId: string, params: ListParams) => listJson<TaxCode>(db, taxCodes, scoped(db, taxCodes, orgId), params);

export const getTaxCode = (db: Queryable, orgId: string, idOrCode: string, includeDeleted = false): Promise<Json<TaxCode> | undefined> =>
  oneByIdOrCodeJson<TaxCode>(db, taxCodes, orgId, idOrCode, { includeDeleted });

const getById = (db: Queryable, orgId: string, id: string) =>
  oneJson<TaxCode>(db, taxCodes, whereId(scoped(db, taxCodes, orgId, { includeDeleted: true }), taxCodes, id));

export async function createTaxCode(db: Queryable, orgId: string, input: TaxCodeChanges): Promise<Json<TaxCode>> {
  const [row] = await db('tax_codes')
    .insert({ ...toRow(input), organization_id: orgId })
    .returning('id');
  return (await getById(db, orgId, row.id))!;
}

export async function updateTaxCode(db: Queryable, orgId: string, idOrCode: string, changes: TaxCodeChanges): Promise<Json<TaxCode> | undefined> {
  const id = await resolveId(db, taxCodes, orgId, idOrCode);
  if (!id) return undefined;
  await db('tax_codes')
    .where({ organization_id: orgId, id })
    .update({ ...toRow(changes), updated_at: db.fn.now() });
  return getById(db, orgId, id);
}

export async function deleteTaxCode(db: Queryable, orgId: string, idOrCode: string): Promise<Json<TaxCode> | undefined> {
  const id = await resolveId(db, taxCodes, orgId, idOrCode);
  if (!id) return undefined;
  await db('tax_codes').where({ organization_id: orgId, id }).update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
  return getById(db, orgId, id);
}

/** Whether a tax code ID belongs to the organization (for references from other resources). */
export async function taxCodeExists(db: Queryable, orgId: string, id: string): Promise<boolean> {
  return !!(await whereId(scoped(db, taxCodes, orgId), taxCodes, id).first('t.id'));
}
