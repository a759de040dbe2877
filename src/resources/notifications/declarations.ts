import type { ResourceDeclarations } from '../declarations';
import { one, entry, type FeedObject } from '../../feed/emit';
import { notificationsInOrder, notifications } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const notificationsDeclarations: ResourceDeclarations = {
  reconciled: { notification: notifications },
  feed: {
    createNotification: one('notification', 'created'),
    // The reply lists the ids changed; the notifications are read back in the transaction, in one statement.
    updateNotifications: async (reply, { db, organizationId }) => {
      const ids = reply as string[];
      return ids.length
        ? (JSON.parse(await notificationsInOrder(db, organizationId, ids)) as FeedObject[]).map((n) => entry('notification', 'updated', n))
        : [];
    },
  },
};
