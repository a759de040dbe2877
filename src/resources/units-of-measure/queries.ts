import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, listJson, oneByIdOrCodeJson, oneJson, resolveId, scoped, whereId } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';

type UnitOfMeasure = Schema<'UnitOfMeasure'>;

export const unitsOfMeasure: ResourceDef = {
  table: 'units_of_measure',
  alias: 'u',
  codeColumn: 'u.code',
  columns: {
    id: idCol('u.id'),
    code: col('u.code'),
    description: col('u.description'),
    multiplier: col('u.multiplier'),
    createdAt: tsCol('u.created_at'),
    updatedAt: tsCol('u.updated_at'),
  },
};

export interface UnitOfMeasureChanges {
  code?: string;
  description?: string;
  multiplier?: 'E' | 'C' | 'M';
}

const toRow = (c: UnitOfMeasureChanges) => ({ code: c.code, description: c.description, multiplier: c.multiplier });

export const listUnitsOfMeasure = (db: Queryable, orgId: string, params: ListParams) =>
  listJson<UnitOfMeasure>(db, unitsOfMeasure, scoped(db, unitsOfMeasure, orgId), params);

export const getUnitOfMeasure = (db: Queryable, orgId: string, idOrCode: string): Promise<Json<UnitOfMeasure> | undefined> =>
  oneByIdOrCodeJson<UnitOfMeasure>(db, unitsOfMeasure, orgId, idOrCode);

const getById = (db: Queryable, orgId: string, id: string) =>
  oneJson<UnitOfMeasure>(db, unitsOfMeasure, whereId(scoped(db, unitsOfMeasure, orgId), unitsOfMeasure, id));

export async function createUnitOfMeasure(db: Queryable, orgId: string, input: UnitOfMeasureChanges): Promise<Json<UnitOfMeasure>> {
  const [row] = await db('units_of_measure')
    .insert({ ...toRow(input), organization_id: orgId })
    .returning('id');
  return (await getById(db, orgId, row.id))!;
}

export async function updateUnitOfMeasure(
  db: Queryable,
  orgId: string,
  idOrCode: string,
  changes: UnitOfMeasureChanges,
): Promise<Json<UnitOfMeasure> | undefined> {
  const id = await resolveId(db, unitsOfMeasure, orgId, idOrCode);
  if (!id) return undefined;
  await db('units_of_measure')
    .where({ organization_id: orgId, id })
    .update({ ...toRow(changes), updated_at: db.fn.now() });
  return getById(db, orgId, id);
}
