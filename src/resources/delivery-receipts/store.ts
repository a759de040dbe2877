import type { Queryable } from '../../db/knex';

/**
 * Writes of delivery receipts (they are recorded in the application; fixtures and demo data go
 * through here). Deleting archives the receipt and bumps updated_at, so that an integrator
 * polling `includeDeleted=true&filter[updatedAt_gt]=...` sees the deletion.
 */
export interface ReceiptWrite {
  identifier?: string | null;
  order_id?: string | null;
  warehouse_request_id?: string | null;
  created_by_id: string;
  notes?: string | null;
  state?: 'SUBMITTED' | 'DRAFT';
  notified_contacts?: string[];
  integration_state?: string;
  integration_message?: string | null;
  integration_last_sync?: string | Date | null;
  created_at?: string | Date;
  updated_at?: string | Date;
}

export type IssueAmounts = Partial<Record<'MISSING' | 'DAMAGED' | 'NO_ISSUES' | 'WRONG_ITEM' | 'BACKORDERED', number>>;

export interface ReceiptItemWrite {
  description: string;
  item_id?: string | null;
  notes?: string | null;
  quantity: number;
  quantity_received_this_receipt: number;
  units_of_measure?: string;
  issues?: IssueAmounts;
}

const ZERO: Required<IssueAmounts> = { MISSING: 0, DAMAGED: 0, NO_ISSUES: 0, WRONG_ITEM: 0, BACKORDERED: 0 };

export async function createDeliveryReceipt(
  db: Queryable,
  orgId: string,
  receipt: ReceiptWrite,
  items: ReceiptItemWrite[] = [],
  fileIds: string[] = [],
): Promise<string> {
  const [row] = await db('delivery_receipts')
    .insert({ ...receipt, organization_id: orgId })
    .returning('id');
  if (items.length) {
    await db('delivery_receipt_items').insert(
      items.map((i) => ({ ...i, issues: JSON.stringify({ ...ZERO, ...i.issues }), organization_id: orgId, delivery_receipt_id: row.id })),
    );
  }
  if (fileIds.length) {
    await db('delivery_receipt_attachments').insert(fileIds.map((file_id) => ({ organization_id: orgId, delivery_receipt_id: row.id, file_id })));
  }
  return row.id as string;
}

export async function deleteDeliveryReceipt(db: Queryable, orgId: string, id: string): Promise<void> {
  await db('delivery_receipts').where({ organization_id: orgId, id }).whereNull('deleted_at').update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
}
