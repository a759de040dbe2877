import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound } from '../../http/handler';
import { createdBy, plainHandlers } from '../crud-handlers';
import * as q from './queries';

const missing = (idOrEmail: string) => notFound(`No user matches ${idOrEmail}.`);

export const userHandlers: Handlers<'listUsers' | 'getUser' | 'createUser'> = {
  listUsers: plainHandlers<Schema<'User'>>(q.users).list({ orderBy: 'createdAt' }),

  getUser: ({ db, caller, params }) => okOrNotFound(q.getUser(db, caller.organizationId, params.userIdOrEmail), missing, params.userIdOrEmail),

  createUser: createdBy(q.createUser),
};
