import type { Knex } from 'knex';
import {
  BatchOutcome,
  NONE_REJECTED,
  RejectedElements,
  UNRECORDED,
  checkBatchSize,
  checkElements,
  insertedIds,
  renamedIds,
  upsertRecordset,
} from '../../db/batch';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { vendorsInOrder } from './queries';

/** POST /vendors/batch: every element checked first, then one upsert statement, in one transaction. */
export async function upsertVendors(
  db: Knex,
  orgId: string,
  inputs: Schema<'VendorUpsert'>[],
  outcome: BatchOutcome = UNRECORDED,
  rejected: RejectedElements = NONE_REJECTED,
): Promise<Json<Schema<'Vendor'>[]>> {
  checkBatchSize(inputs);
  const { errors, accepted } = checkElements(inputs, rejected);
  errors.addDuplicates(
    accepted.map(({ input, position }) => ({ position, key: input.code })),
    (code) => `code ${code}`,
  );
  errors.throwIfAny();
  return db.transaction(async (tx) => {
    // The names before, to tell which vendors the batch renames (locations list them by name).
    // Locked in one order (by code) in every batch, as the jobs batch does: two batches naming the
    // same vendors queue on the first one instead of deadlocking; the upsert then finds them held.
    const before: { code: string; name: string }[] = await tx('vendors')
      .where('organization_id', orgId)
      .whereNull('deleted_at')
      .whereRaw('code = ANY(?::text[])', [inputs.map((i) => i.code)])
      .orderBy('code')
      .forUpdate()
      .select('code', 'name');
    const rows = await upsertRecordset<{ id: string; code: string; xmax: string }>(
      tx,
      'vendors',
      inputs.map((i) => ({ organization_id: orgId, code: i.code, name: i.name })),
      { conflict: '(organization_id, code) WHERE deleted_at IS NULL', update: ['name'], returning: ['id', 'code', 'xmax'] },
    );
    outcome.markCreated(insertedIds(rows));
    outcome.markRenamed(renamedIds(rows, new Map(before.map((v) => [v.code, v.name])), new Map(inputs.map((i) => [i.code, i.name]))));
    const idByCode = new Map(rows.map((r) => [r.code, r.id]));
    return vendorsInOrder(
      tx,
      orgId,
      inputs.map((i) => idByCode.get(i.code)!),
    );
  });
}
