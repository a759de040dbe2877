import type { ResourceDeclarations } from '../declarations';
import { entry, transactionTime, type FeedObject } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const orderTagsDeclarations: ResourceDeclarations = {
  feed: {
    // An order's tag: `id` is the tag's id, `data` the tag as GET /order/{orderId}/tags returns it
    // plus `orderId` (a tag is on many orders: the pair orderId, id names the attachment). Tags the
    // request created or recolored (the handler marks them) also get their own `tag.*` entry first.
    addOrderTags: (reply, { changes, params }) => {
      const tags = reply as FeedObject[];
      return [
        ...tags
          .filter((t) => changes.created.has(t.id) || changes.updated.has(t.id))
          .map((t) => entry('tag', changes.created.has(t.id) ? 'created' : 'updated', t)),
        // Only the tags the order did not have: one it has already is no change (src/feed/unchanged.ts).
        ...tags.filter((t) => changes.attached.has(t.id)).map((t) => entry('order_tag', 'created', { ...t, orderId: params.orderId })),
      ];
    },
    // The tag leaves the order's row with it (nothing is soft-deleted): the transaction's time, as a soft delete's deletedAt is.
    removeOrderTag: async (_reply, { db, params }) => [
      entry('order_tag', 'deleted', { id: params.tagId as string, orderId: params.orderId, deletedAt: await transactionTime(db) }),
    ],
  },
  objects: {
    // An order's tags are the order's: the tag link has no read of its own.
    removeOrderTag: objectOfWrite('orders', 'getOrder'),
  },
};
