import { invalidField, notFound } from '../../errors';
import type { Handlers, Schema } from '../../http/handler';
import type { Queryable } from '../../db/knex';
import { existsById } from '../../db/resource';
import { users } from '../users/queries';
import { orderRows } from '../orders/queries';
import { plainHandlers } from '../crud-handlers';
import * as q from './queries';

const REQUIRED: Record<q.NotificationType, 'lastSyncTime' | 'resolvedAt'> = {
  integration_issue: 'lastSyncTime',
  integration_issue_resolved: 'resolvedAt',
};

/** The payload key the type needs, when it is missing (the schema has already checked formats). */
function missingPayloadKey(type: q.NotificationType, payload: q.NotificationPayload): string | undefined {
  const key = REQUIRED[type];
  return payload[key] === undefined || payload[key] === null ? key : undefined;
}

async function checkPayloadOrder(db: Queryable, orgId: string, payload: q.NotificationPayload, field: string): Promise<void> {
  const id = payload.order?.id;
  if (id !== undefined && !(await existsById(db, orderRows, orgId, id))) throw notFound(`${field}.order.id: no order matches ${id}.`);
}

export const notificationHandlers: Handlers<'listNotifications' | 'createNotification' | 'updateNotifications'> = {
  listNotifications: plainHandlers<Schema<'Notification'>>(q.notifications).list({ orderBy: 'createdAt' }),

  createNotification: async ({ db, caller, body }) => {
    const orgId = caller.organizationId;
    const key = missingPayloadKey(body.type, body.payload);
    if (key) throw invalidField(`body.payload.${key}`, 'required', `is required for type ${body.type}`);
    if (!(await existsById(db, users, orgId, body.recipientId))) {
      throw notFound(`body.recipientId: no user matches ${body.recipientId}.`);
    }
    await checkPayloadOrder(db, orgId, body.payload, 'body.payload');
    return { status: 201, body: await q.createNotification(db, orgId, body) };
  },

  updateNotifications: async ({ db, caller, body }) => {
    const orgId = caller.organizationId;
    const { data } = body;
    if (data.isRead === false && data.readAt) {
      throw invalidField('body.data.readAt', 'consistency', 'must be null or omitted when isRead is false');
    }
    let read: q.NotificationChanges['read'];
    if (data.isRead !== undefined) read = { isRead: data.isRead, readAt: data.readAt ?? undefined };
    else if (data.readAt !== undefined) read = data.readAt === null ? { isRead: false } : { isRead: true, readAt: data.readAt };
    if (data.payload) await checkPayloadOrder(db, orgId, data.payload, 'body.data.payload');

    const ids = await db.transaction(async (tx) => {
      const found = await q.lockNotifications(tx, orgId, body.id_in);
      if (data.type !== undefined || data.payload !== undefined) {
        // The type and the payload must still fit together on every notification changed.
        for (const n of found) {
          const type = data.type ?? n.type;
          const key = missingPayloadKey(type, data.payload ?? n.payload);
          if (key) throw invalidField(`body.data.payload.${key}`, 'required', `is required for type ${type} (notification ${n.id})`);
        }
      }
      return q.updateNotifications(
        tx,
        orgId,
        found.map((n) => n.id),
        { type: data.type, payload: data.payload, read },
      );
    });
    // In the order the request listed them.
    const updated = new Set(ids);
    return { status: 200, body: [...new Set(body.id_in)].filter((id) => updated.has(id)) };
  },
};
