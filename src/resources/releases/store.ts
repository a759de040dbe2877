import type { Queryable } from '../../db/knex';

/**
 * Writes releases. Scheduling and cancelling releases happen in the application, not through the
 * API; demo data and test fixtures create them here.
 */
export interface ReleaseWrite {
  orderId: string;
  releaseNumber: string;
  needByDateDay?: string | Date | null;
  needByWindow?: string | null;
  notes?: string | null;
  additionalNotes?: string | null;
  deliveryLocationId?: string | null;
  createdById?: string | null;
  createdAt?: string | Date;
  items: { itemId: string; quantityReleased: number; backorderQuantity?: number; requisitionItemId?: string | null }[];
}

export async function createRelease(db: Queryable, orgId: string, r: ReleaseWrite): Promise<string> {
  const [row] = await db('releases')
    .insert({
      organization_id: orgId,
      order_id: r.orderId,
      release_number: r.releaseNumber,
      need_by_date_day: r.needByDateDay ?? null,
      need_by_window: r.needByWindow ?? null,
      notes: r.notes ?? null,
      additional_notes: r.additionalNotes ?? null,
      delivery_location_id: r.deliveryLocationId ?? null,
      created_by_id: r.createdById ?? null,
      ...(r.createdAt ? { created_at: r.createdAt, updated_at: r.createdAt } : {}),
    })
    .returning('id');
  if (r.items.length) {
    await db('release_items').insert(
      r.items.map((i) => ({
        organization_id: orgId,
        release_id: row.id,
        item_id: i.itemId,
        quantity_released: i.quantityReleased,
        backorder_quantity: i.backorderQuantity ?? 0,
        requisition_item_id: i.requisitionItemId ?? null,
      })),
    );
  }
  return row.id as string;
}

export async function cancelRelease(db: Queryable, orgId: string, releaseId: string, reason: string | null): Promise<void> {
  await db('releases')
    .where({ organization_id: orgId, id: releaseId })
    .update({ cancelled_at: db.fn.now(), cancelled_reason: reason, updated_at: db.fn.now() });
}
