import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound } from '../../http/handler';
import { plainHandlers } from '../crud-handlers';
import * as q from './queries';

const missing = (id: string) => notFound(`No group matches ${id}.`);
const group = plainHandlers<Schema<'Group'>>(q.groups);

export const groupHandlers: Handlers<'listGroups' | 'createGroup' | 'getGroup' | 'updateGroup'> = {
  listGroups: group.list({ orderBy: 'id' }),

  createGroup: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createGroup(db, caller.organizationId, caller.userId, body),
  }),

  getGroup: group.get('groupId', missing),

  updateGroup: ({ db, caller, params, body }) => okOrNotFound(q.updateGroup(db, caller.organizationId, params.groupId, body), missing, params.groupId),
};
