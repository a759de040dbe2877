import type { Knex } from 'knex';
import type { Queryable } from './knex';
import { selectList } from './columns';
import { type ResourceDef, scoped } from './resource';

/**
 * Live objects of one resource of an organization as its read builds them (the JSON made in
 * PostgreSQL from the ResourceDef's columns), in id order, in one query; `narrow` limits the rows
 * (a keyset page, a set of ids). Each object comes as its JSON text, to be parsed or canonicalized.
 */
export async function readObjectTexts(
  db: Queryable,
  def: ResourceDef,
  organizationId: string,
  narrow: (q: Knex.QueryBuilder, idColumn: string) => void,
): Promise<{ id: string; json: string }[]> {
  const id = `${def.alias}.id`;
  const q = scoped(db, def, organizationId)
    .select(db.raw(selectList(def.columns)))
    .orderBy(id);
  narrow(q, id);
  const { rows } = await db.raw(`SELECT x.id, row_to_json(x)::text AS json FROM ? AS x`, [q]);
  return rows as { id: string; json: string }[];
}
