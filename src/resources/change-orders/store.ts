import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { diffSnapshots } from './diff';
import type { OrderSnapshot } from './snapshot';

export { snapshotOrder } from './snapshot';
export type { OrderSnapshot } from './snapshot';

/**
 * Records a change order: the next version of the order (the initial order is version 0), with
 * the diff between the version before and after the change, stored as the API returns it.
 * Take `before` with snapshotOrder, change the order through the order store, take `after`.
 */
export interface ChangeOrderRecord {
  label?: string | null;
  note?: string | null;
  draft?: boolean;
  createdById?: string | null;
  /** Defaults to now (demo data back-dates its history). */
  createdAt?: string | Date;
  before: OrderSnapshot;
  after: OrderSnapshot;
}

export async function recordChangeOrder(db: Queryable, orgId: string, orderId: string, r: ChangeOrderRecord): Promise<{ id: string; versionNumber: number }> {
  if (!(db as Knex.Transaction).isTransaction) return (db as Knex).transaction((tx) => recordChangeOrder(tx, orgId, orderId, r));
  // Lock the order so concurrent change orders get distinct version numbers.
  await db('orders').where({ organization_id: orgId, id: orderId }).forUpdate().first('id');
  const last = await db('change_orders').where({ organization_id: orgId, order_id: orderId }).max('version_number as max').first();
  const versionNumber = Number(last?.max ?? 0) + 1;
  const diff = diffSnapshots(r.before, r.after);
  const [row] = await db('change_orders')
    .insert({
      organization_id: orgId,
      order_id: orderId,
      version_number: versionNumber,
      label: r.label ?? null,
      note: r.note ?? null,
      draft: r.draft ?? false,
      created_by_id: r.createdById ?? null,
      modified_order_values: JSON.stringify(diff.modifiedOrderValues),
      added_items: JSON.stringify(diff.addedItems),
      deleted_items: JSON.stringify(diff.deletedItems),
      modified_items: JSON.stringify(diff.modifiedItems),
      ...(r.createdAt ? { created_at: r.createdAt, updated_at: r.createdAt } : {}),
    })
    .returning('id');
  // The order's one version number is that of its latest completed change order (a draft's is not yet).
  if (!r.draft) await db('orders').where({ organization_id: orgId, id: orderId }).update({ version: versionNumber });
  return { id: row.id, versionNumber };
}

/** Completes a draft in the application (no API operation): it then appears in lists. */
export async function completeChangeOrder(db: Queryable, orgId: string, id: string): Promise<void> {
  await db('change_orders').where({ organization_id: orgId, id }).update({ draft: false, updated_at: db.fn.now() });
}
