import { notFound } from '../../errors';
import type { Handlers, Schema } from '../../http/handler';
import { plainHandlers } from '../crud-handlers';
import { taxCodes } from './queries';

const missing = (idOrCode: string) => notFound(`No tax code matches ${idOrCode}.`);
const taxCode = plainHandlers<Schema<'TaxCode'>>(taxCodes);

export const taxCodeHandlers: Handlers<'listTaxCodes' | 'createTaxCode' | 'getTaxCode' | 'updateTaxCode' | 'deleteTaxCode'> = {
  listTaxCodes: taxCode.list({ orderBy: 'code' }),
  createTaxCode: taxCode.create(),
  getTaxCode: taxCode.get('taxCodeIdOrCode', missing),
  updateTaxCode: taxCode.update('taxCodeIdOrCode', missing),
  deleteTaxCode: taxCode.remove('taxCodeIdOrCode', missing),
};
