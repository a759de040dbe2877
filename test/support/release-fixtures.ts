import { harness } from './harness';
import { createOrder, ItemWrite, OrderWrite, deleteOrder } from '../../src/resources/orders/store';
import type { TestOrg } from './client';

/**
 * Rows the releases, change-order and bill-of-materials tests need, written directly (jobs,
 * vendors, locations) or through the order store (orders and items), never through another
 * area's API.
 */
let n = 0;
// Its own tag: the other fixtures also name codes `J-<pid>-<n>`, each with a counter of its own, in the same organizations.
const unique = () => `rel-${process.pid}-${++n}`;

export async function makeJob(org: TestOrg, code = `J-${unique()}`, name = 'Riverside Medical Office Building'): Promise<string> {
  const [row] = await harness().db('jobs').insert({ organization_id: org.id, code, name }).returning('id');
  return row.id;
}

export async function makeVendor(org: TestOrg, code = `V-${unique()}`): Promise<string> {
  const [row] = await harness().db('vendors').insert({ organization_id: org.id, code, name: 'Ferguson Enterprises' }).returning('id');
  return row.id;
}

export async function makeLocation(org: TestOrg, name = 'Riverside MOB laydown yard'): Promise<string> {
  const [row] = await harness().db('locations').insert({ organization_id: org.id, name, type: 'Jobsite' }).returning('id');
  return row.id;
}

export interface MadeOrder {
  id: string;
  /** Item IDs by line number. */
  items: Record<number, string>;
}

/** An order (with items) through the order store. */
export async function makeOrder(org: TestOrg, order: OrderWrite = {}, items: ItemWrite[] = []): Promise<MadeOrder> {
  const db = harness().db;
  const id = await createOrder(db, org.id, org.userId, { purchase_order_number: `PO-${unique()}`, type: 'HOLD_FOR_RELEASE', state: 'ACTIVE', ...order }, items);
  const rows: { id: string; line_number: number }[] = await db('items').where({ organization_id: org.id, order_id: id }).select('id', 'line_number');
  return { id, items: Object.fromEntries(rows.map((r) => [r.line_number, r.id])) };
}

export async function softDeleteOrder(org: TestOrg, orderId: string): Promise<void> {
  // Order deletion is not an API operation (nor a store one yet): mark it as the application would.
  await deleteOrder(harness().db, org.id, null, orderId);
}
