import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const usersDeclarations: ResourceDeclarations = {
  feed: {
    createUser: one('user', 'created'),
  },
};
