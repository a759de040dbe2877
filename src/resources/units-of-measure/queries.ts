import { col, idCol, tsCol } from '../../db/columns';
import type { ResourceDef } from '../../db/resource';

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
  writable: ['code', 'description', 'multiplier'],
};
