import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { users } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const usersDeclarations: ResourceDeclarations = {
  reconciled: { user: users },
  feed: {
    createUser: one('user', 'created'),
  },
};
