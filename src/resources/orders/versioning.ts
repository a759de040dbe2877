import type { Knex } from 'knex';
import { isUuid } from '../../db/columns';
import type { Caller } from '../../http/handler';
import type { ChangeCollector } from '../../feed/append';
import { getChangeOrder } from '../change-orders/queries';
import { recordChangeOrder, snapshotOrder } from '../change-orders/store';
import type { OrderMode, OrderState } from './states';
import { getOrder } from './queries';
import { ORDER_STAMPS } from './store';
import { itemsOfOrder } from './item-reads';
import { changedFieldsOf } from '../../feed/unchanged';

/**
 * What makes a change to an order safe and visible: the order row locked for the request, its
 * version, and the change order a change to a sent order records.
 */
export interface LockedOrder {
  id: string;
  state: OrderState;
  mode: OrderMode;
  version: number;
  integrationState: string;
  /** Its references as stored (column names), so a write that leaves one as it is is not refused. */
  refs: Record<string, string | null>;
}

/** The live order, locked until the request's transaction ends (concurrent changes queue up). */
export async function lockOrder(tx: Knex.Transaction, orgId: string, id: string): Promise<LockedOrder | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await tx('orders')
    .where({ organization_id: orgId, id })
    .whereNull('deleted_at')
    .forUpdate()
    .first(
      'id',
      'state',
      'mode',
      'version',
      'integration_state as integrationState',
      'job_id',
      'vendor_id',
      'delivery_location_id',
      'tax_code_id',
      'created_by_id',
    );
  if (!row) return undefined;
  const { job_id, vendor_id, delivery_location_id, tax_code_id, created_by_id, ...order } = row;
  return { ...order, refs: { job_id, vendor_id, delivery_location_id, tax_code_id, created_by_id } };
}

/** The order as GET /orders/{orderId} returns it (after the request's changes); the pipeline adds its ETag (src/http/conditional.ts). */
export async function orderReply(db: Knex | Knex.Transaction, orgId: string, id: string) {
  return { body: (await getOrder(db, orgId, id))! };
}

/** An order and its items as their reads return them. */
async function readOrderWithItems(tx: Knex.Transaction, orgId: string, id: string) {
  return {
    order: JSON.parse((await getOrder(tx, orgId, id))!) as Record<string, unknown>,
    items: JSON.parse(await itemsOfOrder(tx, orgId, id)) as { id: string }[],
  };
}

/**
 * Whether a change to an order changed what its read or its items' reads show, by the feed's rule
 * (src/feed/unchanged.ts), the fields the order store stamps on every change (ORDER_STAMPS) aside.
 */
function orderChanged(before: Awaited<ReturnType<typeof readOrderWithItems>>, after: typeof before): boolean {
  if (changedFieldsOf(after.order, before.order).some((f) => !ORDER_STAMPS.includes(f))) return true;
  if (after.items.length !== before.items.length) return true;
  const prior = new Map(before.items.map((i) => [i.id, i]));
  return after.items.some((i) => !prior.has(i.id) || changedFieldsOf(i, prior.get(i.id)!).length > 0);
}

/**
 * Runs one request's change to an order (`change` goes through the order store, which raises the
 * version and turns a LINKED or LINKING order OUT_OF_SYNC). A change to a sent order (not DRAFT when the
 * request began) records the next change-order version, a draft one when asked. Feed entries:
 * `order.updated` and `change_order.created`; the caller adds its item entries.
 *
 * A change that changes nothing (the order and its items read as before, see orderChanged) is
 * undone, stamps included: no version, no change order, no integration state moved, no entry (a
 * connector pushing its copy of an order again, or retrying a PATCH, leaves a LINKED order LINKED).
 * Returns whether it changed anything.
 */
export async function changeOrderWith(
  tx: Knex.Transaction,
  caller: Caller,
  changes: ChangeCollector,
  order: LockedOrder,
  draft: boolean,
  change: () => Promise<void>,
): Promise<boolean> {
  const orgId = caller.organizationId;
  const savepoint = `order_change_${order.version}`;
  await tx.raw(`SAVEPOINT ${savepoint}`);
  const read = await readOrderWithItems(tx, orgId, order.id);
  const before = order.state === 'DRAFT' ? undefined : await snapshotOrder(tx, orgId, order.id);
  await change();
  if (!orderChanged(read, await readOrderWithItems(tx, orgId, order.id))) {
    await tx.raw(`ROLLBACK TO SAVEPOINT ${savepoint}`);
    await tx.raw(`RELEASE SAVEPOINT ${savepoint}`);
    return false;
  }
  await tx.raw(`RELEASE SAVEPOINT ${savepoint}`);
  if (before) {
    const after = (await snapshotOrder(tx, orgId, order.id))!;
    const recorded = await recordChangeOrder(tx, orgId, order.id, { before, after, draft, createdById: caller.userId });
    changes.add({ type: 'change_order.created', resource: 'change_order', id: recorded.id, data: JSON.parse((await getChangeOrder(tx, orgId, recorded.id))!) });
  }
  changes.add({ type: 'order.updated', resource: 'order', id: order.id, data: JSON.parse((await getOrder(tx, orgId, order.id))!) });
  return true;
}
