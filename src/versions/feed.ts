import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from './types';

/**
 * The component schema of each feed resource's `data` (what its own read returns): a feed entry,
 * stored once in the newest shape, is moved down to a reader's version by its resource's schema.
 * A resource not listed here reads the same at every version. A webhook endpoint's schema is the
 * same at every version, but its `fields` are shown in the reader's version's names
 * (x-changed-fields), so its entries are moved down like its read.
 */
export const FEED_SCHEMAS: Readonly<Record<string, string>> = {
  order: 'Order',
  webhook_endpoint: 'WebhookEndpoint',
};

/**
 * A feed entry (GET /changes, a webhook payload) moved down across one version's changes:
 * `data` as its read at that version returns it, `changedFields` and `previous` named and valued
 * as that version names them (a field computed from a changed one has changed too).
 */
export function entryDown(objectDown: ReadonlyMap<string, (value: JsonObject) => JsonObject>): (entry: JsonObject) => JsonObject {
  return (entry) => {
    const schema = FEED_SCHEMAS[entry.resource as string];
    const down = schema ? objectDown.get(schema) : undefined;
    if (!down || !entry.data || typeof entry.data !== 'object') return entry;
    const data = down(entry.data as JsonObject);
    if (!Array.isArray(entry.changedFields)) return { ...entry, data };
    const before = down({ ...(entry.data as JsonObject), ...(entry.previous as JsonObject) });
    // A field the change did not touch holds the very same value in both (the spread copies it): no deep comparison for it.
    const changedFields = Object.keys(data).filter((k) => k !== 'updatedAt' && k in before && data[k] !== before[k] && !isDeepStrictEqual(data[k], before[k]));
    // Only the fields the stored entry says changed (or ones computed from them): a change the read does not show stays empty.
    const named = entry.changedFields.length ? changedFields : [];
    return { ...entry, data, changedFields: named, previous: Object.fromEntries(named.map((k) => [k, before[k]])) };
  };
}

/**
 * The contract's mark on a query parameter whose values name top-level fields of feed entries'
 * `data` (GET /changes?fields=): at an older version they are that version's names, moved to the
 * newest's before the feed is read (VersionMoves.changedFieldsUp) and checked again on the page
 * moved down (keepChangedOneOf).
 */
export const CHANGED_FIELDS = 'x-changed-fields';

/** A list parameter's names as given: repeated, comma-separated, or both. */
export const namesOf = (given: unknown): string[] =>
  (Array.isArray(given) ? given : [given])
    .flatMap((n) => String(n).split(','))
    .map((n) => n.trim())
    .filter(Boolean);

/** Whether a feed entry changed one of `wanted`, or says no changedFields (creations, deletions pass). */
export const changedOneOf = (entry: unknown, wanted: ReadonlySet<string>): boolean => {
  const changed = (entry as JsonObject | null)?.changedFields;
  return !Array.isArray(changed) || changed.some((f) => wanted.has(f as string));
};

/** A feed page (`data`: its entries) with only the entries that changed one of `names` (changedOneOf). */
export function keepChangedOneOf(page: unknown, names: string[]): unknown {
  const entries = (page as { data?: unknown } | null)?.data;
  if (!Array.isArray(entries)) return page;
  const wanted = new Set(names);
  const kept = entries.filter((e) => changedOneOf(e, wanted));
  return kept.length === entries.length ? page : { ...(page as JsonObject), data: kept };
}
