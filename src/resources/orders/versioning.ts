import type { Knex } from 'knex';
import { isUuid } from '../../db/columns';
import type { Caller } from '../../http/handler';
import type { ChangeCollector } from '../../feed/append';
import { getChangeOrder } from '../change-orders/queries';
import { recordChangeOrder, snapshotOrder } from '../change-orders/store';
import type { OrderMode, OrderState } from './states';
import { getOrder } from './queries';

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

/** The order as GET /orders/{id} returns it (after the request's changes); the pipeline adds its ETag (src/http/conditional.ts). */
export async function orderReply(db: Knex | Knex.Transaction, orgId: string, id: string) {
  return { body: (await getOrder(db, orgId, id))! };
}

/**
 * Runs one request's change to an order (`change` goes through the order store, which raises the
 * version and turns a LINKED or LINKING order OUT_OF_SYNC). A change to a sent order (not DRAFT when the
 * request began) records the next change-order version, a draft one when asked. Feed entries:
 * `order.updated` and `change_order.created`; the caller adds its item entries.
 */
export async function changeOrderWith(
  tx: Knex.Transaction,
  caller: Caller,
  changes: ChangeCollector,
  order: LockedOrder,
  draft: boolean,
  change: () => Promise<void>,
): Promise<void> {
  const orgId = caller.organizationId;
  const before = order.state === 'DRAFT' ? undefined : await snapshotOrder(tx, orgId, order.id);
  await change();
  if (before) {
    const after = (await snapshotOrder(tx, orgId, order.id))!;
    const recorded = await recordChangeOrder(tx, orgId, order.id, { before, after, draft, createdById: caller.userId });
    changes.add({ type: 'change_order.created', resource: 'change_order', id: recorded.id, data: JSON.parse((await getChangeOrder(tx, orgId, recorded.id))!) });
  }
  changes.add({ type: 'order.updated', resource: 'order', id: order.id, data: JSON.parse((await getOrder(tx, orgId, order.id))!) });
}
