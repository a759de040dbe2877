import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const groupsDeclarations: ResourceDeclarations = {
  feed: {
    createGroup: one('group', 'created'),
    updateGroup: one('group', 'updated'),
  },
  objects: {
    updateGroup: objectOfWrite('groups', 'getGroup'),
  },
};
