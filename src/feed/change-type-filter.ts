import { invalidField } from '../errors';
import { CHANGE_EVENTS, FEED_RESOURCES } from './change-types';

const RESOURCES = new Set<string>(FEED_RESOURCES);
const EVENTS = new Set<string>(Object.values(CHANGE_EVENTS).flat());

/**
 * A change type a filter may name: `<resource>.<event>` with a resource the feed reports and an
 * event it reports (for any resource). A misspelt event (`vendor.update`) is refused; a pair not
 * written today (`group.deleted`) is accepted and matches what the feed will write under that name,
 * so a subscription can be made ahead of it. ChangeType (change-types.ts) lists what is written.
 */
export const isChangeType = (type: string): boolean => {
  const dot = type.indexOf('.');
  return dot > 0 && RESOURCES.has(type.slice(0, dot)) && EVENTS.has(type.slice(dot + 1));
};

/**
 * Refuses a list of change types naming one that is not (a 400 naming `field` and the first such
 * type): the one rule for `GET /changes?types=` and a webhook endpoint's `types`.
 */
export function checkChangeTypes(field: string, types: readonly string[]): void {
  const bad = types.find((t) => !isChangeType(t));
  if (bad !== undefined) throw invalidField(field, 'enum', `${bad} is not a change type (<resource>.<event>, e.g. vendor.updated)`);
}
