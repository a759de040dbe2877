import { col, idCol, tsCol } from '../../db/columns';
import type { ResourceDef } from '../../db/resource';

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
  writable: ['code', 'description', 'taxPercent', 'taxType'],
};
