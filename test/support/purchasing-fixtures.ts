import { harness } from './harness';
import { createOrder, ItemWrite, OrderWrite, deleteOrder } from '../../src/resources/orders/store';

/**
 * Rows the purchasing tests need, inserted directly (their own APIs belong to other areas), and
 * orders with items written through the order store like every other order writer.
 */
const db = () => harness().db;
let n = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++n}`;

async function insert(table: string, row: Record<string, unknown>): Promise<string> {
  const [r] = await db()(table).insert(row).returning('id');
  return r.id as string;
}

export const insertJob = (orgId: string, code = unique('J'), name = 'Riverside Medical Office Building') =>
  insert('jobs', { organization_id: orgId, code, name });

export const insertVendor = (orgId: string, code = unique('V'), opts: { name?: string; sellerOrgId?: string } = {}) =>
  insert('vendors', { organization_id: orgId, code, name: opts.name ?? 'Ferguson Enterprises', seller_organization_id: opts.sellerOrgId ?? null });

export const insertLocation = (orgId: string, name = 'Riverside jobsite') => insert('locations', { organization_id: orgId, name, type: 'Jobsite' });

export const insertTaxCode = (orgId: string, code = unique('TX'), taxPercent = 0.0725) =>
  insert('tax_codes', { organization_id: orgId, code, description: `${code} sales tax`, tax_percent: taxPercent });

/** gl_codes, cost_types, item_codes: code and description. */
export const insertCode = (table: 'gl_codes' | 'cost_types' | 'item_codes', orgId: string, code = unique('C'), description = 'Materials') =>
  insert(table, { organization_id: orgId, code, description });

export const insertPhase = (orgId: string, code = unique('P'), description = 'Cast-in-place concrete') =>
  insert('phases', { organization_id: orgId, code, description });

export const insertCostCategory = (orgId: string, code = unique('CC'), description = 'Materials') =>
  insert('cost_categories', { organization_id: orgId, code, description });

export const insertUser = (orgId: string, email = `${unique('user')}@builders.example`) =>
  insert('users', { organization_id: orgId, email, first_name: 'Maria', last_name: 'Chen', display_name: 'Maria Chen', role: 'Field' });

export const insertTag = (orgId: string, title = unique('Tag'), opts: { color?: string | null; type?: string } = {}) =>
  insert('tags', { organization_id: orgId, title, color: opts.color ?? null, type: opts.type ?? 'ORDER' });

export async function insertAttachment(orgId: string, orderId: string, identifier: string, fileName: string): Promise<string> {
  const fileId = await insert('files', { organization_id: orgId, name: fileName, url: `https://files.procurement.dev/${fileName}` });
  return insert('order_attachments', { organization_id: orgId, order_id: orderId, file_id: fileId, identifier });
}

/** An order (with items) through the order store, by the organization's admin user. */
export function makeOrder(org: { id: string; userId: string }, order: OrderWrite = {}, items: ItemWrite[] = []): Promise<string> {
  return createOrder(db(), org.id, org.userId, { purchase_order_number: unique('PO'), ...order }, items);
}

export async function softDeleteOrder(orgId: string, orderId: string): Promise<void> {
  await deleteOrder(db(), orgId, null, orderId);
}

/** Moves the order's updated_at into the past (lookback tests). */
export async function ageOrder(orgId: string, orderId: string, days: number): Promise<void> {
  await db()('orders')
    .where({ organization_id: orgId, id: orderId })
    .update({ updated_at: db().raw(`now() - make_interval(days => ?)`, [days]) });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
