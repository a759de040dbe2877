import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { takePurchaseOrderNumber } from '../jobs/po-counter';

/**
 * The one module that changes orders and their items. The integration-state rules live here:
 * a new order is NOT_LINKED; any change to a LINKED or LINKING order or its items moves it to
 * OUT_OF_SYNC (a connector writing it would miss the change, and the pull must see it again);
 * becoming LINKED stamps integration_last_sync (which no client can write).
 * Everything that writes orders (fixtures, demo data, future authoring endpoints) goes through it.
 */
export type IntegrationState = 'NOT_LINKED' | 'LINKING' | 'LINKED' | 'OUT_OF_SYNC' | 'ERROR';

/** Order columns a writer may set (snake_case). Integration fields are deliberately absent. */
export interface OrderWrite {
  job_id?: string | null;
  vendor_id?: string | null;
  delivery_location_id?: string | null;
  gl_code_id?: string | null;
  tax_code_id?: string | null;
  purchase_order_number?: string | null;
  title?: string | null;
  notes?: string | null;
  delivery_instructions?: string | null;
  discount?: number | null;
  shipping_cost?: number | null;
  field_contact_name?: string | null;
  field_contact_phone?: string | null;
  flagged?: boolean;
  flagged_at?: string | Date | null;
  flag_message?: string | null;
  tax_exempt?: boolean | null;
  mode?: 'ISSUE_PO' | 'PRE_ACKNOWLEDGED' | 'REQUEST_FOR_QUOTE';
  need_by_date_day?: string | Date | null;
  need_by_window?: 'ASAP' | 'AMEarly' | 'AM' | 'PM' | 'PMLate' | 'UNSPECIFIED';
  state?: 'DRAFT' | 'BID_ACTIVE' | 'BID_CANCELLED' | 'FINALIZING' | 'ACTIVE' | 'CANCELLED' | 'COMPLETE';
  type?: 'HOLD_FOR_RELEASE' | 'MAJOR' | 'STANDARD';
  received_state?: 'NO_DELIVERIES' | 'PARTIALLY_RECEIVED' | 'FULLY_RECEIVED';
  custom_column_value?: string | null;
  off_rent_date?: string | null;
  off_rent_number?: string | null;
  distributor_contact_name?: string | null;
  distributor_contact_email?: string | null;
  distributor_contact_phone?: string | null;
  distributor_contact_company?: string | null;
  is_visible_to_field?: boolean | null;
  header_custom_field_value?: string | null;
  external_id?: string | null;
  created_at?: string | Date;
}

/** Item columns a writer may set (snake_case). */
export type ItemWrite = Record<string, unknown> & { line_number: number };

type Tx = Knex.Transaction;

async function inTransaction<T>(db: Queryable, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (db as Knex.Transaction).isTransaction ? fn(db as Tx) : (db as Knex).transaction(fn);
}

/**
 * The fields of an order's read that touch() stamps on every change: they say that something
 * changed, they are not the change (src/resources/orders/versioning.ts, orderChanged).
 */
export const ORDER_STAMPS: readonly string[] = ['updatedAt', 'updatedById', 'versionNumber', 'integrationState'];

/** Marks a LINKED or LINKING order OUT_OF_SYNC and stamps who changed it and when (its version moves with its change orders). */
async function touch(tx: Tx, orgId: string, orderId: string, userId: string | null): Promise<void> {
  await tx('orders')
    .where({ organization_id: orgId, id: orderId })
    .update({
      updated_at: tx.fn.now(),
      updated_by_id: userId,
      integration_state: tx.raw(`CASE WHEN integration_state IN ('LINKED', 'LINKING') THEN 'OUT_OF_SYNC' ELSE integration_state END`),
    });
}

/**
 * Creates an order (NOT_LINKED) with its items. An order of a job given no purchase order number
 * (the key absent, not null) takes the job's next free number from its counter, atomically, in the
 * same transaction as the insert.
 */
export async function createOrder(db: Queryable, orgId: string, userId: string | null, order: OrderWrite, items: ItemWrite[] = []): Promise<string> {
  return inTransaction(db, async (tx) => {
    const numbered =
      order.purchase_order_number === undefined && order.job_id
        ? { ...order, purchase_order_number: await takePurchaseOrderNumber(tx, orgId, order.job_id) }
        : order;
    const [row] = await tx('orders')
      .insert({ ...numbered, organization_id: orgId, created_by_id: userId, updated_by_id: userId, integration_state: 'NOT_LINKED' })
      .returning('id');
    if (items.length) await tx('items').insert(items.map((i) => ({ ...i, organization_id: orgId, order_id: row.id })));
    return row.id as string;
  });
}

export async function updateOrder(db: Queryable, orgId: string, userId: string | null, orderId: string, changes: OrderWrite): Promise<void> {
  await inTransaction(db, async (tx) => {
    if (Object.keys(changes).length) await tx('orders').where({ organization_id: orgId, id: orderId }).update(changes);
    await touch(tx, orgId, orderId, userId);
  });
}

export async function addItems(db: Queryable, orgId: string, userId: string | null, orderId: string, items: ItemWrite[]): Promise<string[]> {
  return inTransaction(db, async (tx) => {
    const rows = await tx('items')
      .insert(items.map((i) => ({ ...i, organization_id: orgId, order_id: orderId })))
      .returning('id');
    await touch(tx, orgId, orderId, userId);
    return rows.map((r: { id: string }) => r.id);
  });
}

export async function updateItem(db: Queryable, orgId: string, userId: string | null, itemId: string, changes: Record<string, unknown>): Promise<void> {
  await inTransaction(db, async (tx) => {
    const [row] = await tx('items')
      .where({ organization_id: orgId, id: itemId })
      .update({ ...changes, updated_at: tx.fn.now() })
      .returning('order_id');
    if (row) await touch(tx, orgId, row.order_id, userId);
  });
}

export async function removeItem(db: Queryable, orgId: string, userId: string | null, itemId: string): Promise<void> {
  await inTransaction(db, async (tx) => {
    const [row] = await tx('items').where({ organization_id: orgId, id: itemId }).delete().returning('order_id');
    if (row) await touch(tx, orgId, row.order_id, userId);
  });
}

/** Soft-deletes an order: it disappears from lists and reads, and its number is free again. */
export async function deleteOrder(db: Queryable, orgId: string, userId: string | null, orderId: string): Promise<boolean> {
  const n = await db('orders')
    .where({ organization_id: orgId, id: orderId })
    .whereNull('deleted_at')
    .update({ deleted_at: db.fn.now(), updated_at: db.fn.now(), updated_by_id: userId });
  return n > 0;
}

/**
 * What the integrating system reports. LINKED stamps integration_last_sync; the message is stored
 * (and cleared when none is given). This is not "a change made in the service": it does not
 * move the order to OUT_OF_SYNC, and it leaves updated_at alone, so an integrator polling
 * `filter[updatedAt_gt]` is not sent its own acknowledgement back (no sync loop).
 */
export async function setIntegrationState(db: Queryable, orgId: string, orderId: string, state: IntegrationState, message: string | null): Promise<boolean> {
  const n = await db('orders')
    .where({ organization_id: orgId, id: orderId })
    .whereNull('deleted_at')
    .update({
      integration_state: state,
      integration_message: message,
      ...(state === 'LINKED' ? { integration_last_sync: db.fn.now() } : {}),
    });
  return n > 0;
}
