import { notFound } from '../../errors';
import type { Handlers, Schema } from '../../http/handler';
import { plainHandlers } from '../crud-handlers';
import { unitsOfMeasure } from './queries';

const missing = (idOrCode: string) => notFound(`No unit of measure matches ${idOrCode}.`);
const unitOfMeasure = plainHandlers<Schema<'UnitOfMeasure'>>(unitsOfMeasure);

export const unitOfMeasureHandlers: Handlers<'listUnitsOfMeasure' | 'createUnitOfMeasure' | 'getUnitOfMeasure' | 'updateUnitOfMeasure'> = {
  listUnitsOfMeasure: unitOfMeasure.list({ orderBy: 'code' }),
  createUnitOfMeasure: unitOfMeasure.create(),
  getUnitOfMeasure: unitOfMeasure.get('unitOfMeasureIdOrCode', missing),
  updateUnitOfMeasure: unitOfMeasure.update('unitOfMeasureIdOrCode', missing),
};
