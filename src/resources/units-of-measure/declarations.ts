import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { unitsOfMeasure } from './queries';

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const unitsOfMeasureDeclarations: ResourceDeclarations = {
  reconciled: { unit_of_measure: unitsOfMeasure },
  feed: {
    createUnitOfMeasure: one('unit_of_measure', 'created'),
    updateUnitOfMeasure: one('unit_of_measure', 'updated'),
  },
  objects: {
    updateUnitOfMeasure: objectOfWrite('units_of_measure', 'getUnitOfMeasure'),
  },
};
