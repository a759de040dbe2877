import type { Queryable } from '../../db/knex';
import { col, idCol, tsCol } from '../../db/columns';
import type { ListParams } from '../../db/list';
import { ResourceDef, listJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';

type Tag = Schema<'Tag'>;

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

export const listTags = (db: Queryable, orgId: string, params: ListParams): Promise<Json<Tag[]>> => listJson<Tag>(db, tags, scoped(db, tags, orgId), params);
