import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, idCol, isUuid, tsCol } from '../../db/columns';
import { ResourceDef, allJson, oneByIdJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';

type Notification = Schema<'Notification'>;
export type NotificationType = Schema<'NotificationType'>;
export type NotificationPayload = Schema<'NotificationPayload'>;

export const notifications: ResourceDef = {
  table: 'notifications',
  alias: 'n',
  columns: {
    id: idCol('n.id'),
    type: col('n.type'),
    payload: col('n.payload'),
    recipientId: col('n.recipient_id'),
    isRead: col('n.is_read'),
    readAt: tsCol('n.read_at'),
    createdAt: tsCol('n.created_at'),
    updatedAt: tsCol('n.updated_at'),
  },
};

/** Notifications by id (ids the database handed out), in the order given: one statement. */
export function notificationsInOrder(db: Queryable, orgId: string, ids: string[]): Promise<Json<Notification[]>> {
  const q = scoped(db, notifications, orgId).whereRaw('n.id = ANY(?::uuid[])', [ids]);
  return allJson<Notification>(db, notifications, q, `array_position(ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[], n.id)`);
}

export async function createNotification(
  db: Queryable,
  orgId: string,
  input: { recipientId: string; type: NotificationType; payload: NotificationPayload },
): Promise<Json<Notification>> {
  const [row] = await db('notifications')
    .insert({ organization_id: orgId, recipient_id: input.recipientId, type: input.type, payload: JSON.stringify(input.payload) })
    .returning('id');
  return (await oneByIdJson<Notification>(db, notifications, orgId, row.id))!;
}

export interface StoredNotification {
  id: string;
  type: NotificationType;
  payload: NotificationPayload;
}

/** The organization's notifications among the IDs (others are skipped), locked for the update. */
export async function lockNotifications(tx: Queryable, orgId: string, ids: string[]): Promise<StoredNotification[]> {
  const valid = ids.filter(isUuid);
  if (!valid.length) return [];
  return tx('notifications').where('organization_id', orgId).whereIn('id', valid).orderBy('id').forUpdate().select('id', 'type', 'payload');
}

export interface NotificationChanges {
  type?: NotificationType;
  payload?: NotificationPayload;
  /** true: read at readAt, or now keeping an earlier time; false: unread. */
  read?: { isRead: boolean; readAt?: string };
}

export async function updateNotifications(tx: Queryable, orgId: string, ids: string[], changes: NotificationChanges): Promise<string[]> {
  if (!ids.length) return [];
  const set: Record<string, unknown> = { updated_at: tx.fn.now() };
  if (changes.type !== undefined) set.type = changes.type;
  if (changes.payload !== undefined) set.payload = JSON.stringify(changes.payload);
  if (changes.read) {
    set.is_read = changes.read.isRead;
    if (!changes.read.isRead) set.read_at = null;
    else set.read_at = changes.read.readAt ?? tx.raw('coalesce(read_at, now())');
  }
  const rows: { id: string }[] = await tx('notifications').where('organization_id', orgId).whereIn('id', ids).forUpdate().select('id');
  // A notification the change leaves as it is stays untouched, updated_at included (src/feed/unchanged.ts).
  const differs: [string, unknown[]][] = [];
  if (set.type !== undefined) differs.push(['type IS DISTINCT FROM ?', [set.type]]);
  if (set.payload !== undefined) differs.push(['payload IS DISTINCT FROM ?::jsonb', [set.payload]]);
  if (changes.read) {
    differs.push(['is_read IS DISTINCT FROM ?', [changes.read.isRead]]);
    if (changes.read.isRead && changes.read.readAt !== undefined) differs.push(['read_at IS DISTINCT FROM ?::timestamptz(3)', [changes.read.readAt]]);
  }
  if (differs.length)
    await tx('notifications')
      .where('organization_id', orgId)
      .whereIn('id', ids)
      .whereRaw(`(${differs.map(([sql]) => sql).join(' OR ')})`, differs.flatMap(([, values]) => values) as Knex.RawBinding[])
      .update(set);
  const updated = new Set(rows.map((r) => r.id));
  return ids.filter((id) => updated.has(id));
}
