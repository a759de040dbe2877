import type { Knex } from 'knex';
import { isUuid } from '../../db/columns';
import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound, orNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { addItems, removeItem, updateItem } from '../orders/store';
import { asItemWrite, itemColumns, repriceItems } from '../orders/authoring';
import { assertOpen } from '../orders/states';
import { changeOrderWith, lockOrder, type LockedOrder } from '../orders/versioning';
import { missingOrder } from '../orders/lookup';
import { orderRows } from '../orders/queries';
import { type Parent, plainHandlers } from '../crud-handlers';
import * as q from '../orders/item-reads';

const missingItem = (id: string) => notFound(`No item matches ${id}.`);
const parentOrder: Parent = { def: orderRows, column: 'i.order_id', missing: missingOrder };

/**
 * The open order an item belongs to, locked for the request: 404 for an unknown item, one of
 * another organization or of a deleted order; 409 when the order is final.
 */
async function lockOrderOfItem(tx: Knex.Transaction, orgId: string, itemId: string): Promise<LockedOrder> {
  const row = isUuid(itemId) ? await tx('items').where({ organization_id: orgId, id: itemId }).first('order_id') : undefined;
  const order = row && (await lockOrder(tx, orgId, row.order_id));
  if (!order) throw missingItem(itemId);
  // Read before the order's lock: a concurrent request may have removed the item while this one
  // waited for it. Items change only under their order's lock, so this read is settled.
  if (!(await tx('items').where({ organization_id: orgId, id: itemId, order_id: order.id }).first('id'))) throw missingItem(itemId);
  assertOpen(order.state);
  return order;
}

export const itemHandlers: Handlers<'listOrderItems' | 'getItem' | 'listItems' | 'createOrderItems' | 'updateItem' | 'deleteItem'> = {
  listOrderItems: plainHandlers<Schema<'Item'>>(q.items).listByParent('orderId', parentOrder, { orderBy: 'lineNumber' }),

  getItem: ({ db, caller, params }) => okOrNotFound(q.getItem(db, caller.organizationId, params.itemId), missingItem, params.itemId),

  listItems: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listBulkItems(db, caller.organizationId, {
      ...listParams(query, { orderBy: 'createdAt', direction: 'DESC', limit: 500 }),
      cursor: query.cursor,
    }),
  }),

  createOrderItems: async ({ db, caller, params, query, body, changes }) => {
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const order = orNotFound(await lockOrder(tx, orgId, params.orderId), missingOrder, params.orderId);
    assertOpen(order.state);
    const rows = await itemColumns(tx, orgId, body, (n) => `body[${n}]`);
    let ids: string[] = [];
    await changeOrderWith(tx, caller, changes, order, query.draft ?? false, async () => {
      ids = await addItems(tx, orgId, caller.userId, order.id, rows.map(asItemWrite));
      await repriceItems(tx, orgId, order.id, ids);
    });
    const created = JSON.parse(await q.itemsByIds(tx, orgId, ids)) as Schema<'Item'>[];
    for (const item of created) changes.add({ type: 'item.created', resource: 'item', id: item.id, data: item });
    // In input order, as documented.
    const byId = new Map(created.map((i) => [i.id, i]));
    return { status: 201, body: ids.map((id) => byId.get(id)!) };
  },

  updateItem: async ({ db, caller, params, query, body, changes }) => {
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const order = await lockOrderOfItem(tx, orgId, params.itemId);
    const [row] = await itemColumns(tx, orgId, [body], () => 'body', await q.heldTaxCode(tx, orgId, params.itemId), [params.itemId]);
    await changeOrderWith(tx, caller, changes, order, query.draft ?? false, async () => {
      await updateItem(tx, orgId, caller.userId, params.itemId, row);
      await repriceItems(tx, orgId, order.id, [params.itemId]);
    });
    const item = (await q.getItem(tx, orgId, params.itemId))!;
    changes.add({ type: 'item.updated', resource: 'item', id: params.itemId, data: JSON.parse(item) });
    return { status: 200, body: item };
  },

  deleteItem: async ({ db, caller, params, query, changes }) => {
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const order = await lockOrderOfItem(tx, orgId, params.itemId);
    const before = JSON.parse((await q.getItem(tx, orgId, params.itemId))!);
    await changeOrderWith(tx, caller, changes, order, query.draft ?? false, () => removeItem(tx, orgId, caller.userId, params.itemId));
    const { deletedAt } = (await tx.first(tx.raw('api_ts(now()) AS "deletedAt"'))) as { deletedAt: string };
    changes.add({ type: 'item.deleted', resource: 'item', id: params.itemId, data: { id: params.itemId, deletedAt, orderId: order.id } });
    return { status: 200, body: { ...before, deletedAt } };
  },
};
