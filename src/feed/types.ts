import { invalidField } from '../http/errors';
import { CHANGE_TYPES } from './change-types';

const KNOWN = new Set<string>(CHANGE_TYPES);

/** A change type the feed reports (`vendor.updated`, `item.deleted`; the list in change-types.ts). */
export const isChangeType = (type: string): boolean => KNOWN.has(type);

/**
 * Refuses a list of change types naming one the feed does not report (a 400 naming `field` and
 * the first such type): the one rule for `GET /changes?types=` and a webhook endpoint's `types`.
 * A misspelt type would otherwise match nothing, silently: the worst outcome for a sync.
 */
export function checkChangeTypes(field: string, types: readonly string[]): void {
  const bad = types.find((t) => !isChangeType(t));
  if (bad !== undefined) throw invalidField(field, 'enum', `${bad} is not a change type (<resource>.<event>, e.g. vendor.updated)`);
}
