import type { Knex } from 'knex';
import { ApiError, notFound } from '../../errors';
import { type Handlers, type Schema, orNotFound } from '../../http/handler';
import { itemsByIds, itemsOfOrder } from './item-reads';
import { createOrder, deleteOrder, type IntegrationState, setIntegrationState, updateOrder } from './store';
import { type ChangeCollector, CommittedRefusal } from '../../feed/append';
import { entry } from '../../feed/emit';
import type { ResourceWith } from '../../feed/change-types';
import { asItemWrite, itemColumns, orderColumns, repriceItems } from './authoring';
import { assertInitial, assertMove, type OrderMode, type OrderState } from './states';
import { changeOrderWith, lockOrder, orderReply } from './versioning';
import * as q from './queries';
import { missingOrder } from './lookup';
import { reportedMessage } from '../integration-report';
import { plainHandlers } from '../crud-handlers';

const TAX_FIELDS = ['taxCodeId', 'taxExempt'];

/**
 * What a deleted order takes with it out of the API (each is listed on its own: GET /items,
 * /changeOrders, /releases, /order/{orderId}/tags), in the order their tombstones enter the feed,
 * before `order.deleted`. An order tag's id is its tag's (as removeOrderTag's tombstone).
 */
const LEAVE_WITH_ORDER: { resource: ResourceWith<'deleted'>; table: string; id: string; orderBy: string }[] = [
  { resource: 'item', table: 'items', id: 'id', orderBy: 'line_number' },
  { resource: 'change_order', table: 'change_orders', id: 'id', orderBy: 'version_number' },
  { resource: 'release', table: 'releases', id: 'id', orderBy: 'created_at' },
  { resource: 'order_tag', table: 'order_tags', id: 'tag_id', orderBy: 'created_at' },
];

/** Stores an integration state and records it in the feed; answers the order as it now is. */
async function reportState(tx: Knex.Transaction, orgId: string, id: string, state: IntegrationState, message: string | null, changes: ChangeCollector) {
  await setIntegrationState(tx, orgId, id, state, message);
  const reply = await orderReply(tx, orgId, id);
  changes.add({ type: 'order.integration_state_changed', resource: 'order', id, data: JSON.parse(reply.body) });
  return reply;
}

export const orderHandlers: Handlers<
  'listOrders' | 'getOrder' | 'updateOrderIntegrationState' | 'findSellerOrder' | 'createOrder' | 'updateOrder' | 'deleteOrder'
> = {
  listOrders: plainHandlers<Schema<'Order'>>(q.orders).list({ orderBy: 'createdAt' }),

  getOrder: async ({ db, caller, params }) => {
    return { status: 200, body: orNotFound(await q.getOrder(db, caller.organizationId, params.orderId), missingOrder, params.orderId) };
  },

  createOrder: async ({ db, caller, body, changes }) => {
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const mode: OrderMode = body.mode ?? 'ISSUE_PO';
    const state: OrderState = body.state ?? 'DRAFT';
    assertInitial(mode, state);
    const { created_by_id: createdBy, ...columns } = await orderColumns(tx, orgId, body);
    const rows = await itemColumns(tx, orgId, body.items ?? [], (n) => `body.items[${n}]`);
    const id = await createOrder(tx, orgId, createdBy ?? caller.userId, { ...columns, mode, state }, rows.map(asItemWrite));
    await repriceItems(tx, orgId, id);
    const reply = await orderReply(tx, orgId, id);
    changes.add({ type: 'order.created', resource: 'order', id, data: JSON.parse(reply.body) });
    if (rows.length) {
      const created = JSON.parse(await itemsOfOrder(tx, orgId, id)) as { id: string }[];
      for (const item of created) changes.add({ type: 'item.created', resource: 'item', id: item.id, data: item });
    }
    return { status: 201, ...reply };
  },

  updateOrder: async ({ db, caller, params, query, body, changes }) => {
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const order = orNotFound(await lockOrder(tx, orgId, params.orderId), missingOrder, params.orderId);
    if (body.state) assertMove(order.mode, order.state, body.state);
    const { created_by_id: createdBy, ...columns } = await orderColumns(tx, orgId, body, order.refs, order.id);
    const repriced: string[] = [];
    await changeOrderWith(tx, caller, changes, order, query.draft ?? false, async () => {
      await updateOrder(tx, orgId, caller.userId, order.id, { ...columns, ...(createdBy !== undefined ? ({ created_by_id: createdBy } as object) : {}) });
      if (TAX_FIELDS.some((f) => f in body)) repriced.push(...(await repriceItems(tx, orgId, order.id)));
    });
    if (repriced.length) {
      for (const item of JSON.parse(await itemsByIds(tx, orgId, repriced)) as { id: string }[])
        changes.add({ type: 'item.updated', resource: 'item', id: item.id, data: item });
    }
    return { status: 200, ...(await orderReply(tx, orgId, order.id)) };
  },

  deleteOrder: async ({ db, caller, params, changes }) => {
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const order = orNotFound(await lockOrder(tx, orgId, params.orderId), missingOrder, params.orderId);
    const before = JSON.parse((await q.getOrder(tx, orgId, order.id))!);
    await deleteOrder(tx, orgId, caller.userId, order.id);
    const { deletedAt } = (await tx('orders').where({ organization_id: orgId, id: order.id }).first(tx.raw('api_ts(deleted_at) AS "deletedAt"'))) as {
      deletedAt: string;
    };
    // What it holds leaves every read and list with it: each gets its tombstone, so a replay of the feed drops it too.
    for (const { resource, table, id: idColumn, orderBy } of LEAVE_WITH_ORDER) {
      const ids: string[] = await tx(table).where({ organization_id: orgId, order_id: order.id }).orderBy(orderBy).orderBy(idColumn).pluck(idColumn);
      for (const id of ids) changes.add(entry(resource, 'deleted', { id, deletedAt, orderId: order.id }));
    }
    changes.add({ type: 'order.deleted', resource: 'order', id: order.id, data: { id: order.id, deletedAt } });
    return { status: 200, body: { ...before, deletedAt } };
  },

  updateOrderIntegrationState: async ({ db, caller, params, body, changes }) => {
    const message = reportedMessage(body);
    const tx = db as Knex.Transaction;
    const orgId = caller.organizationId;
    const order = orNotFound(await lockOrder(tx, orgId, params.orderId), missingOrder, params.orderId);
    // A LINKED report for a version the order has moved past would hide the newer change. A LINKING
    // order goes back to the pull (OUT_OF_SYNC), and that stands although the report is refused.
    if (body.integrationState === 'LINKED' && body.versionNumber !== undefined && body.versionNumber !== order.version) {
      const unlinked = order.integrationState === 'LINKING';
      const refusal = new ApiError(409, 'stale-version', 'Conflict', [
        {
          message: `body.versionNumber: the order is at version ${order.version}, not ${body.versionNumber}; it ${unlinked ? 'is OUT_OF_SYNC again' : `stays ${order.integrationState}`}: read it again and link version ${order.version}`,
          field: 'body.versionNumber',
          rule: 'current-version',
        },
      ]);
      if (!unlinked) throw refusal;
      await reportState(tx, orgId, order.id, 'OUT_OF_SYNC', null, changes);
      throw new CommittedRefusal(refusal);
    }
    return { status: 200, ...(await reportState(tx, orgId, order.id, body.integrationState, message, changes)) };
  },

  findSellerOrder: async ({ db, caller, params }) => {
    const found = await q.findSellerOrder(db, caller.organizationId, params.buyerId, params.purchaseOrderNumber);
    if (!found) throw notFound(`No order of buyer ${params.buyerId} sent to you matches purchase order number ${params.purchaseOrderNumber}.`);
    return { status: 200, body: found };
  },
};
