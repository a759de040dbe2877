import { col, idCol, tsCol } from '../../db/columns';
import type { ResourceDef } from '../../db/resource';

/** Tags: the column map every resource that returns Tag objects (order tags) can share. */
export const tags: ResourceDef = {
  table: 'tags',
  alias: 'tg',
  columns: {
    id: idCol('tg.id'),
    title: col('tg.title'),
    type: col('tg.type'),
    color: col('tg.color'),
    createdAt: tsCol('tg.created_at'),
    updatedAt: tsCol('tg.updated_at'),
  },
};
