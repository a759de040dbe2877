import { ApiError } from '../errors';
import type { Queryable } from './knex';
import { isUuid } from './columns';

/** Tables whose objects carry an integrator's `externalId`, and whether only live rows hold it (see the migration). */
const LIVE_ONLY: Record<string, boolean> = {
  orders: true,
  items: false,
  invoices: true,
  delivery_receipts: true,
  requisitions: true,
  change_orders: false,
};

export interface ExternalIdUse {
  /** The field as the request names it (`body.externalId`, `body.items[2].externalId`). */
  field: string;
  value: string;
  /** The object being written (an update may keep its own value). */
  id?: string;
}

/**
 * 409 naming the field and the other object when an externalId is taken in the organization (or
 * given twice in one request): unique per organization and resource, when set. The partial unique
 * index is the backstop for a concurrent write (src/db/pg-errors.ts).
 */
export async function checkExternalIds(db: Queryable, table: string, orgId: string, what: string, uses: ExternalIdUse[]): Promise<void> {
  if (!uses.length) return;
  const seen = new Map<string, ExternalIdUse>();
  for (const use of uses) {
    const first = seen.get(use.value);
    if (first) throw taken(use.field, use.value, `is given twice in this request (also ${first.field})`);
    seen.set(use.value, use);
  }
  const q = db(table)
    .where('organization_id', orgId)
    .whereIn('external_id', [...seen.keys()]);
  if (LIVE_ONLY[table]) q.whereNull('deleted_at');
  const rows: { id: string; external_id: string }[] = await q.select('id', 'external_id');
  for (const row of rows) {
    const use = seen.get(row.external_id)!;
    if (row.id !== use.id) throw taken(use.field, use.value, `is already the externalId of ${what} ${row.id}`);
  }
}

const taken = (field: string, value: string, message: string): ApiError =>
  new ApiError(409, 'conflict', 'Conflict', [{ message: `${field}: ${JSON.stringify(value)} ${message}`, field, rule: 'unique' }]);

/**
 * Sets an object's externalId (null clears it) once it is known to be free; an id that names no
 * object of the organization changes nothing (the caller answers its own 404).
 */
export async function setExternalId(
  db: Queryable,
  table: string,
  orgId: string,
  what: string,
  id: string,
  value: string | null,
  field = 'body.externalId',
): Promise<void> {
  if (!isUuid(id)) return;
  if (value !== null) await checkExternalIds(db, table, orgId, what, [{ field, value, id }]);
  await db(table).where({ organization_id: orgId, id }).update({ external_id: value });
}
