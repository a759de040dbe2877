import type { ResourceDeclarations } from '../declarations';
import { one, entry } from '../../feed/emit';
import { notificationsInOrder, notifications } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const notificationsDeclarations: ResourceDeclarations = {
  reconciled: { notification: notifications },
  feed: {
    createNotification: one('notification', 'created'),
    // The reply lists the ids changed; the notifications are read back in the transaction, in one statement.
    updateNotifications: async (reply: string[], { db, organizationId }) =>
      reply.length
        ? (JSON.parse(await notificationsInOrder(db, organizationId, reply)) as { id: string }[]).map((n) => entry('notification', 'updated', n))
        : [],
  },
};
