import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { taxCodes } from './queries';

const taxCode = objectOfWrite('tax_codes', 'getTaxCode');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const taxCodesDeclarations: ResourceDeclarations = {
  reconciled: { tax_code: taxCodes },
  feed: {
    createTaxCode: one('tax_code', 'created'),
    updateTaxCode: one('tax_code', 'updated'),
    deleteTaxCode: one('tax_code', 'deleted'),
  },
  objects: {
    updateTaxCode: taxCode,
    deleteTaxCode: taxCode,
  },
};
