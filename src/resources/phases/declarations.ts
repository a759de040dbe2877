import type { ResourceDeclarations } from '../declarations';
import { one, upserted } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { phases } from './queries';

const globalPhase = objectOfWrite('phases', 'getGlobalPhase');
const jobPhase = objectOfWrite('phases', 'getJobPhase');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const phasesDeclarations: ResourceDeclarations = {
  reconciled: { phase: phases },
  feed: {
    createGlobalPhase: one('phase', 'created'),
    upsertPhases: upserted('phase'),
    updateGlobalPhase: one('phase', 'updated'),
    deleteGlobalPhase: one('phase', 'deleted'),
    createJobPhase: one('phase', 'created'),
    updateJobPhase: one('phase', 'updated'),
    deleteJobPhase: one('phase', 'deleted'),
  },
  objects: {
    updateGlobalPhase: globalPhase,
    deleteGlobalPhase: globalPhase,
    updateJobPhase: jobPhase,
    deleteJobPhase: jobPhase,
  },
  batchLists: {
    upsertPhases: 'inputs',
  },
};
