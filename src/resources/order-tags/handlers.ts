import { isUuid } from '../../db/columns';
import { notFound } from '../../errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { requireOrder } from '../orders/lookup';
import * as q from './queries';

export const orderTagHandlers: Handlers<'listOrderTags' | 'addOrderTags' | 'removeOrderTag'> = {
  listOrderTags: async ({ db, caller, params, query }) => {
    const orgId = caller.organizationId;
    await requireOrder(db, orgId, params.orderId);
    return { status: 200, body: await q.listOrderTags(db, orgId, params.orderId, listParams(query, { orderBy: 'createdAt' })) };
  },

  addOrderTags: async ({ db, caller, params, body, changes }) => {
    const orgId = caller.organizationId;
    await requireOrder(db, orgId, params.orderId);
    const written = { created: [] as string[], recolored: [] as string[], attached: [] as string[] };
    const tags = await db.transaction((tx) => q.addOrderTags(tx, orgId, params.orderId, body, written));
    // The feed's tag.created / tag.updated entries (declarations.ts).
    changes.markCreated(written.created);
    changes.markUpdated(written.recolored);
    changes.markAttached(written.attached);
    return { status: 200, body: tags };
  },

  removeOrderTag: async ({ db, caller, params }) => {
    const orgId = caller.organizationId;
    await requireOrder(db, orgId, params.orderId);
    if (!isUuid(params.tagId) || !(await q.removeOrderTag(db, orgId, params.orderId, params.tagId))) {
      throw notFound(`The order has no tag ${params.tagId}.`);
    }
    return { status: 200, body: true };
  },
};
