import { harness } from './harness';
import type { TestOrg } from './client';
import { createOrder, deleteOrder } from '../../src/resources/orders/store';
import { createDeliveryReceipt, ReceiptItemWrite, ReceiptWrite } from '../../src/resources/delivery-receipts/store';

/**
 * Rows for the receiving-and-billing suites, written straight to the database: jobs, vendors,
 * locations and users have their own APIs elsewhere, and requisitions, receipts and invoices are
 * recorded by the application (orders go through the order store).
 */
export interface Basics {
  jobId: string;
  vendorId: string;
  locationId: string;
  userId: string;
  otherUserId: string;
}

let n = 0;
// Its own tag: purchasing-fixtures.ts also names codes `J-<pid>-<n>`, with a counter of its own, in the same organizations.
const next = () => `bill-${process.pid}-${++n}`;
const db = () => harness().db;

export async function basics(org: TestOrg): Promise<Basics> {
  const k = next();
  const o = org.id;
  const [loc] = await db()('locations')
    .insert({ organization_id: o, name: `Yard ${k}`, type: 'Warehouse' })
    .returning('id');
  const [job] = await db()('jobs')
    .insert({ organization_id: o, code: `J-${k}`, name: `Job ${k}` })
    .returning('id');
  const [vendor] = await db()('vendors')
    .insert({ organization_id: o, code: `V-${k}`, name: `Vendor ${k}` })
    .returning('id');
  const [user] = await db()('users')
    .insert({ organization_id: o, email: `field.${k}@builders.example`, first_name: 'Sam', last_name: 'Field', display_name: 'Sam Field', role: 'Field' })
    .returning('id');
  return { jobId: job.id, vendorId: vendor.id, locationId: loc.id, userId: org.userId, otherUserId: user.id };
}

export async function order(org: TestOrg, b: Basics, deleted = false): Promise<{ orderId: string; itemId: string }> {
  const orderId = await createOrder(
    db(),
    org.id,
    b.userId,
    { job_id: b.jobId, vendor_id: b.vendorId, purchase_order_number: `PO-${next()}`, state: 'ACTIVE' },
    [{ line_number: 1, description: 'Copper pipe', quantity: 40, unit_price: 58.75 }],
  );
  const item = await db()('items').where({ order_id: orderId }).first('id');
  if (deleted) await deleteOrder(db(), org.id, null, orderId);
  return { orderId, itemId: item.id };
}

export async function file(org: TestOrg, name: string): Promise<string> {
  const [f] = await db()('files')
    .insert({ organization_id: org.id, name, url: `https://files.example/${name}` })
    .returning('id');
  return f.id;
}

export async function requisition(org: TestOrg, b: Basics, row: Record<string, unknown> = {}, items: Record<string, unknown>[] = []): Promise<string> {
  const [r] = await db()('requisitions')
    .insert({ organization_id: org.id, job_id: b.jobId, ordering_agent_id: b.userId, created_by_id: b.otherUserId, identifier: `REQ-${next()}`, ...row })
    .returning('id');
  if (items.length)
    await db()('requisition_items').insert(items.map((i) => ({ organization_id: org.id, requisition_id: r.id, created_by_id: b.otherUserId, ...i })));
  return r.id;
}

export async function warehouseRequest(org: TestOrg, b: Basics, row: Record<string, unknown> = {}, items: Record<string, unknown>[] = []): Promise<string> {
  const [r] = await db()('warehouse_requests')
    .insert({
      organization_id: org.id,
      job_id: b.jobId,
      location_id: b.locationId,
      created_by_id: b.userId,
      identifier: `WR-${next()}`,
      need_by_date_day: '2026-11-20T00:00:00Z',
      ...row,
    })
    .returning('id');
  if (items.length) {
    await db()('warehouse_request_items').insert(
      items.map((i) => ({ organization_id: org.id, warehouse_request_id: r.id, created_by_id: b.userId, description: 'Item', ...i })),
    );
  }
  return r.id;
}

export function receipt(org: TestOrg, b: Basics, row: Partial<ReceiptWrite> = {}, items: ReceiptItemWrite[] = [], fileIds: string[] = []): Promise<string> {
  return createDeliveryReceipt(db(), org.id, { created_by_id: b.userId, identifier: `DR-${next()}`, state: 'SUBMITTED', ...row }, items, fileIds);
}

export async function invoice(
  org: TestOrg,
  b: Basics,
  row: Record<string, unknown> = {},
  items: Record<string, unknown>[] = [],
  fileIds: string[] = [],
): Promise<string> {
  const [inv] = await db()('invoices')
    .insert({ organization_id: org.id, created_by_id: b.userId, job_id: b.jobId, vendor_id: b.vendorId, invoice_number: `INV-${next()}`, ...row })
    .returning('id');
  if (items.length) {
    await db()('invoice_items').insert(items.map((i, idx) => ({ organization_id: org.id, invoice_id: inv.id, line_number: idx + 1, ...i })));
  }
  if (fileIds.length) await db()('invoice_attachments').insert(fileIds.map((file_id) => ({ organization_id: org.id, invoice_id: inv.id, file_id })));
  return inv.id;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
