import type { Queryable } from '../../db/knex';
import { ListParams } from '../../db/list';
import { allJson, listJson, scoped } from '../../db/resource';
import { tags } from '../tags/queries';
import { notFound } from '../../http/errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';

type Tag = Schema<'Tag'>;
type TagInput = Schema<'OrderTagInput'>;

const onOrder = (db: Queryable, orgId: string, orderId: string) =>
  scoped(db, tags, orgId).whereExists(
    db('order_tags as ot').whereRaw('ot.organization_id = tg.organization_id AND ot.tag_id = tg.id').where('ot.order_id', orderId),
  );

export const listOrderTags = (db: Queryable, orgId: string, orderId: string, params: ListParams) =>
  listJson<Tag>(db, tags, onOrder(db, orgId, orderId), params);

/**
 * Adds the tags to the order: each one matched by id, else by exact title, else created (type
 * ORDER). A given color different from the stored one replaces it. Every id is checked (one query)
 * before anything is written. Returns the tags in input order, each once.
 */
export async function addOrderTags(
  tx: Queryable,
  orgId: string,
  orderId: string,
  inputs: TagInput[],
  written: { created: string[]; recolored: string[] } = { created: [], recolored: [] },
): Promise<Json<Tag[]>> {
  const ids = [...new Set(inputs.filter((t) => t.id !== undefined).map((t) => t.id!))];
  const titles = [...new Set(inputs.filter((t) => t.id === undefined).map((t) => t.title))];
  const existing: { id: string; title: string; color: string | null }[] = await tx('tags')
    .where('organization_id', orgId)
    .where((w) => w.whereRaw('id::text = ANY(?::text[])', [ids]).orWhereIn('title', titles))
    .select('id', 'title', 'color');
  const byId = new Map(existing.map((t) => [t.id, t]));
  const byTitle = new Map(existing.map((t) => [t.title, t]));
  inputs.forEach((t, i) => {
    if (t.id !== undefined && !byId.has(t.id)) throw notFound(`body[${i}].id: no tag matches ${t.id}.`);
  });

  const result: string[] = [];
  for (const input of inputs) {
    let tag = input.id !== undefined ? byId.get(input.id) : byTitle.get(input.title);
    if (!tag) {
      [tag] = await tx('tags')
        .insert({ organization_id: orgId, title: input.title, type: 'ORDER', color: input.color ?? null })
        .returning(['id', 'title', 'color']);
      byId.set(tag!.id, tag!);
      byTitle.set(tag!.title, tag!);
      written.created.push(tag!.id);
    } else if (input.color !== undefined && input.color !== tag.color) {
      await tx('tags').where({ organization_id: orgId, id: tag.id }).update({ color: input.color, updated_at: tx.fn.now() });
      tag.color = input.color;
      written.recolored.push(tag.id);
    }
    if (!result.includes(tag!.id)) result.push(tag!.id);
  }
  if (result.length) {
    await tx('order_tags')
      .insert(result.map((tagId) => ({ organization_id: orgId, order_id: orderId, tag_id: tagId })))
      .onConflict(['organization_id', 'order_id', 'tag_id'])
      .ignore();
  }
  return allJson<Tag>(
    tx,
    tags,
    scoped(tx, tags, orgId).whereRaw('tg.id = ANY(?::uuid[])', [result]),
    tx.raw('array_position(?::uuid[], tg.id)', [result]).toQuery(),
  );
}

/** Takes the tag off the order; false when the order does not have it. */
export async function removeOrderTag(db: Queryable, orgId: string, orderId: string, tagId: string): Promise<boolean> {
  const n = await db('order_tags').where({ organization_id: orgId, order_id: orderId, tag_id: tagId }).delete();
  return n > 0;
}
