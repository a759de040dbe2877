import type { Queryable } from './knex';
import { isUuid } from './columns';

/**
 * Which of the given IDs name a row of `table` in the organization (live rows only when the table
 * soft-deletes): one query for any number of IDs, so a batch checks its references at once.
 * A value that is not an ID is simply not found.
 */
export async function existingIds(
  db: Queryable,
  table: string,
  orgId: string,
  ids: (string | null | undefined)[],
  opts: { softDelete?: boolean } = {},
): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((id): id is string => isUuid(id)).map((id) => id.toLowerCase()))];
  if (!wanted.length) return new Set();
  const q = db(table).where('organization_id', orgId).whereRaw('id = ANY(?::uuid[])', [wanted]).select('id');
  if (opts.softDelete) q.whereNull('deleted_at');
  const rows: { id: string }[] = await q;
  return new Set(rows.map((r) => r.id));
}

/**
 * Whether a reference field was given a value to look up: any string, the empty string too (it is
 * no ID of the organization, and is answered like any other unknown value, never sent to the
 * database as a uuid). Null (clearing the reference) and an omitted field are not.
 */
export const isReference = (id: string | null | undefined): id is string => typeof id === 'string';

/**
 * Whether a reference given in a write must be looked up: a value (isReference) other than the one
 * the object already holds. A reference left as it is passes unchecked, even to an object deleted
 * since: a client that writes back what it read is not refused for a field it did not change.
 */
export const changedReference = (given: string | null | undefined, current?: string | null): given is string =>
  isReference(given) && !(typeof current === 'string' && current.toLowerCase() === given.toLowerCase());

/** The given IDs that `existingIds` did not find, in input order, without repeats. */
export function missingOf(ids: (string | null | undefined)[], found: Set<string>): string[] {
  return [...new Set(ids.filter((id): id is string => isReference(id) && !found.has(id.toLowerCase())))];
}
