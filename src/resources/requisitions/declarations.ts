import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { requisitions } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const requisitionsDeclarations: ResourceDeclarations = {
  reconciled: { requisition: requisitions },
  feed: {
    updateRequisitionState: one('requisition', 'state_changed'),
  },
  objects: {
    updateRequisitionState: objectOfWrite('requisitions', 'getRequisition'),
  },
};
