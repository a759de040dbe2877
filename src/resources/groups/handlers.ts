import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

const missing = (id: string) => notFound(`No group matches ${id}.`);

export const groupHandlers: Handlers<'listGroups' | 'createGroup' | 'getGroup' | 'updateGroup'> = {
  listGroups: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listGroups(db, caller.organizationId, listParams(query, { orderBy: 'id' })),
  }),

  createGroup: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createGroup(db, caller.organizationId, caller.userId, body),
  }),

  getGroup: async ({ db, caller, params }) => {
    const found = await q.getGroup(db, caller.organizationId, params.id);
    if (!found) throw missing(params.id);
    return { status: 200, body: found };
  },

  updateGroup: async ({ db, caller, params, body }) => {
    const updated = await q.updateGroup(db, caller.organizationId, params.id, body);
    if (!updated) throw missing(params.id);
    return { status: 200, body: updated };
  },
};
