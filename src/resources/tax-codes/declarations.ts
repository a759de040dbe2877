import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';

const taxCode = objectOfWrite('tax_codes', 'getTaxCode');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const taxCodesDeclarations: ResourceDeclarations = {
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
