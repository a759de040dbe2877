import type { Knex } from 'knex';
import { PositionErrors, checkBatchSize, upsertRecordset } from '../../db/batch';
import type { Schema } from '../../http/handler';
import type { Json } from '../../http/json';
import { vendorsInOrder } from './queries';

/** POST /vendors/batch: every element checked first, then one upsert statement, in one transaction. */
export async function upsertVendors(db: Knex, orgId: string, inputs: Schema<'VendorUpsert'>[]): Promise<Json<Schema<'Vendor'>[]>> {
  checkBatchSize(inputs);
  const errors = new PositionErrors();
  errors.addDuplicates(
    inputs.map((i) => i.code),
    (code) => `code ${code}`,
  );
  errors.throwIfAny();
  return db.transaction(async (tx) => {
    const rows = await upsertRecordset<{ id: string; code: string }>(
      tx,
      'vendors',
      inputs.map((i) => ({ organization_id: orgId, code: i.code, name: i.name })),
      { conflict: '(organization_id, code) WHERE deleted_at IS NULL', update: ['name'], returning: ['id', 'code'] },
    );
    const idByCode = new Map(rows.map((r) => [r.code, r.id]));
    return vendorsInOrder(tx, orgId, inputs.map((i) => idByCode.get(i.code)!));
  });
}
