import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import * as q from './queries';

export const tagHandlers: Handlers<'listTags'> = {
  listTags: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listTags(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' })),
  }),
};
