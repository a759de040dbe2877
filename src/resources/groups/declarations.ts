import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { groups } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const groupsDeclarations: ResourceDeclarations = {
  reconciled: { group: groups },
  feed: {
    createGroup: one('group', 'created'),
    updateGroup: one('group', 'updated'),
  },
  objects: {
    updateGroup: objectOfWrite('groups', 'getGroup'),
  },
};
