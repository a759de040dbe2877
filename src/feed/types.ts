import { invalidField } from '../http/errors';
import { FEED_RESOURCES } from './operations';

/** A change type: `<resource>.<event>` of a resource the feed reports (`vendor.updated`, `item.deleted`). */
const TYPE_RE = new RegExp(`^(${FEED_RESOURCES.join('|')})\\.[a-z_]+$`);

export const isChangeType = (type: string): boolean => TYPE_RE.test(type);

/**
 * Refuses a list of change types naming one that is not (a 400 naming `field` and the first such
 * type): the one rule for `GET /changes?types=` and a webhook endpoint's `types`.
 */
export function checkChangeTypes(field: string, types: readonly string[]): void {
  const bad = types.find((t) => !isChangeType(t));
  if (bad !== undefined) throw invalidField(field, 'enum', `${bad} is not a change type (<resource>.<event>, e.g. vendor.updated)`);
}
