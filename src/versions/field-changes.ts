import type { FieldChange, JsonObject } from './types.ts';

/** `value` with `key` set to `item` right after `after` (keys keep their order: an older reply reads exactly as it did). */
function withKeyAfter(value: JsonObject, after: string | undefined, key: string, item: unknown): JsonObject {
  const out: JsonObject = {};
  if (after === undefined) out[key] = item;
  // for...in, not Object.entries: no [key, value] pair per field (a 1000-entry feed page at an older version moves 4000 orders).
  for (const k in value) {
    if (k === key) continue;
    out[k] = value[k];
    if (k === after) out[key] = item;
  }
  if (!(key in out)) out[key] = item;
  return out;
}

/**
 * `withKeyAfter` for one key and place, for replies: each call gives an object like
 * withKeyAfter's, built from a template with the reply's keys already in order (a JSON.parse'd
 * object, so fast properties) that is copied (spread) and then filled. withKeyAfter's key-by-key
 * copy into `{}` turns an object of more than a dozen keys into a dictionary: slow to fill, to
 * copy again and to stringify (an older version's order read spent an eighth more instructions
 * than the newest's, most of them there). The template is kept for the last list of keys seen
 * (an object's reads have the same keys every time) and made again when they differ. Without
 * `after` among the keys, `key` comes last, as withKeyAfter puts it.
 */
function keyInserter(after: string, key: string): (value: JsonObject, item: unknown) => JsonObject {
  let seen: string[] | undefined;
  let template: JsonObject = {};
  return (value, item) => {
    let same = seen !== undefined;
    let i = 0;
    if (same) {
      for (const k in value) {
        if (seen![i++] !== k) {
          same = false;
          break;
        }
      }
      if (i !== seen!.length) same = false;
    }
    if (!same) {
      seen = Object.keys(value);
      const keys: string[] = [];
      for (const k of seen) {
        if (k === key) continue;
        keys.push(k);
        if (k === after) keys.push(key);
      }
      if (!keys.includes(key)) keys.push(key);
      template = JSON.parse(`{${keys.map((k) => `${JSON.stringify(k)}:null`).join(',')}}`) as JsonObject;
    }
    const out = { ...template };
    for (const k in value) if (k !== key) out[k] = value[k];
    out[key] = item;
    return out;
  };
}

/** `value` with the key `from` renamed `to`, in its place. */
function renamedKey(value: JsonObject, from: string, to: string): JsonObject {
  if (!(from in value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k === from ? to : k] = v;
  return out;
}

/** `list` with `item` inserted right after `after` (at the start when `after` is not in it). */
function insertedAfter(list: string[], after: string | undefined, item: string): string[] {
  const at = after === undefined ? -1 : list.indexOf(after);
  return [...list.slice(0, at + 1), item, ...list.slice(at + 1)];
}

/** A field the older version calls `older` and the newer `newer` (requests and replies alike); `olderDescription`: its description there. */
export function renamedField(schema: string, older: string, newer: string, olderDescription?: string): FieldChange {
  return {
    schema,
    summary: `\`${schema}.${older}\` is renamed \`${newer}\`.`,
    contract(s) {
      s.properties = renamedKey(s.properties, newer, older);
      if (olderDescription !== undefined) s.properties[older] = { ...s.properties[older], description: olderDescription };
      if (s.required) s.required = s.required.map((r: string) => (r === newer ? older : r));
    },
    up: (value) => renamedKey(value, older, newer),
    down: (value) => renamedKey(value, newer, older),
    olderName: (name) => (name === newer ? older : name),
    newerName: (name) => (name === older ? newer : name),
    newerSources: (name) => [name === older ? newer : name],
  };
}

export interface RetiredField {
  /** Its definition in the older contract. */
  definition: Record<string, unknown>;
  /** The field it followed in the older contract (its place in the schema and in replies). */
  after: string;
  required: boolean;
  /** The newer shape's fields its value is computed from: a change of one of them may change it (GET /changes?fields= at the older version). */
  from: string[];
  /** Its value, from the newer shape of the object; undefined when that shape lacks what it is computed from (a tombstone): then it is left out. */
  value(object: JsonObject): unknown;
}

/** A field only the older version has: the newer drops it, and replies at the older compute it again. */
export function retiredField(schema: string, name: string, retired: RetiredField): FieldChange {
  const insert = keyInserter(retired.after, name);
  return {
    schema,
    summary: `\`${schema}.${name}\` is retired.`,
    contract(s) {
      s.properties = withKeyAfter(s.properties, retired.after, name, structuredClone(retired.definition));
      if (retired.required) s.required = insertedAfter(s.required ?? [], retired.after, name);
    },
    up: (value) => {
      if (!(name in value)) return value;
      const { [name]: _dropped, ...rest } = value;
      return rest;
    },
    down: (value) => {
      const v = retired.value(value);
      return v === undefined ? value : insert(value, v);
    },
    olderName: (n) => n,
    newerName: (n) => (n === name ? null : n),
    newerSources: (n) => (n === name ? [...retired.from] : [n]),
  };
}
