import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

export const userHandlers: Handlers<'listUsers' | 'getUser' | 'createUser'> = {
  listUsers: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listUsers(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' })),
  }),

  getUser: async ({ db, caller, params }) => {
    const found = await q.getUser(db, caller.organizationId, params.idOrEmail);
    if (!found) throw notFound(`No user matches ${params.idOrEmail}.`);
    return { status: 200, body: found };
  },

  createUser: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createUser(db, caller.organizationId, body),
  }),
};
