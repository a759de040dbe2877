import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { ListParams } from '../../db/list';
import { allJson, listJson, scoped } from '../../db/resource';
import { tags } from '../tags/queries';
import { notFound, unavailable } from '../../errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

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
 * ORDER). A given color different from the stored one replaces it; when several inputs name one
 * tag, the last color given wins (the inputs apply in order). Every id is checked (one query)
 * before anything is written, and however many tags the body names, the writes are set-based:
 * one insert of the new tags, one update of the recolored ones, one insert of the attachments.
 * Returns the tags in input order, each once.
 */
export async function addOrderTags(
  tx: Queryable,
  orgId: string,
  orderId: string,
  inputs: TagInput[],
  written: { created: string[]; recolored: string[]; attached: string[] } = { created: [], recolored: [], attached: [] },
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

  // Each input resolved to its tag (a new one is keyed by its title), with the color it ends with.
  interface Target {
    tag?: { id: string; color: string | null };
    title: string;
    color: string | null;
    /** Whether an input gave a color (else a tag found keeps its own). */
    colorGiven: boolean;
  }
  const targets = new Map<string, Target>();
  const order: Target[] = [];
  for (const input of inputs) {
    const tag = input.id !== undefined ? byId.get(input.id) : byTitle.get(input.title);
    const key = tag ? `id:${tag.id}` : `title:${input.title}`;
    let target = targets.get(key);
    if (!target) {
      target = { tag, title: tag?.title ?? input.title, color: tag ? tag.color : (input.color ?? null), colorGiven: false };
      targets.set(key, target);
      order.push(target);
    }
    if (input.color !== undefined) {
      target.color = input.color;
      target.colorGiven = true;
    }
  }

  // New titles first, in title order (concurrent requests take their locks in the same order). A
  // title another request created since the read above (and committed) is taken as found: both
  // requests name one tag, neither fails on the title's uniqueness.
  const fresh = order.filter((t) => !t.tag).sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  if (fresh.length) {
    const created: { id: string; title: string }[] = (
      await tx.raw(
        `INSERT INTO tags (organization_id, title, type, color)
         SELECT ?, n.title, 'ORDER', n.color FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS n(title, color, ord) ORDER BY n.ord
         ON CONFLICT (organization_id, title) DO NOTHING
         RETURNING id, title`,
        // knex's binding types have no array with null elements; pg sends a null element as NULL.
        [orgId, fresh.map((t) => t.title), fresh.map((t) => t.color)] as Knex.RawBinding[],
      )
    ).rows;
    const idOf = new Map(created.map((c) => [c.title, c.id]));
    const raced = fresh.filter((t) => !idOf.has(t.title));
    const found: { id: string; title: string; color: string | null }[] = raced.length
      ? await tx('tags')
          .where('organization_id', orgId)
          .whereIn(
            'title',
            raced.map((t) => t.title),
          )
          .select('id', 'title', 'color')
      : [];
    const foundOf = new Map(found.map((t) => [t.title, t]));
    for (const t of fresh) {
      const id = idOf.get(t.title);
      if (id) {
        t.tag = { id, color: t.color };
        written.created.push(id);
      } else {
        const tag = foundOf.get(t.title);
        // Created and deleted again by others between the two statements: as a deadlock, retried by the caller.
        if (!tag) throw unavailable('The request conflicted with a concurrent change; retry it.');
        t.tag = tag;
        if (!t.colorGiven) t.color = tag.color;
      }
    }
  }
  // Then the recolored ones, in id order (the same order in every request).
  const recolored = order.filter((t) => t.tag && t.color !== t.tag.color).sort((a, b) => (a.tag!.id < b.tag!.id ? -1 : 1));
  if (recolored.length) {
    await tx.raw(
      `UPDATE tags t SET color = u.color, updated_at = now()
         FROM unnest(?::uuid[], ?::text[]) AS u(id, color)
        WHERE t.organization_id = ? AND t.id = u.id`,
      [recolored.map((t) => t.tag!.id), recolored.map((t) => t.color), orgId] as Knex.RawBinding[],
    );
    written.recolored.push(...recolored.map((t) => t.tag!.id));
  }

  const result = order.map((t) => t.tag!.id);
  if (result.length) {
    const attached: { tag_id: string }[] = await tx('order_tags')
      .insert([...result].sort().map((tagId) => ({ organization_id: orgId, order_id: orderId, tag_id: tagId })))
      .onConflict(['organization_id', 'order_id', 'tag_id'])
      .ignore()
      .returning('tag_id');
    written.attached.push(...attached.map((a) => a.tag_id));
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
