import qs from 'qs';

/**
 * The query-string parser every request goes through. Express 5's default does not nest
 * `filter[...]`; qs with allowDots accepts both `filter[code_in][]=A` and `filter.code_in=A`.
 * arrayLimit matches the 1000-value cap on `_in` lists (beyond it qs would build an object).
 */
export function parseQuery(s: string): Record<string, unknown> {
  const parsed = qs.parse(s, { allowDots: true, depth: 3, arrayLimit: 1000, parameterLimit: 5000 }) as Record<string, unknown>;
  const filter = parsed.filter;
  if (filter && typeof filter === 'object' && !Array.isArray(filter)) {
    for (const [key, value] of Object.entries(filter)) {
      // `filter[state_in]=OPEN,CLOSED` is a list; the repeated `[]` form keeps commas inside values.
      if (/_(not_)?in$/.test(key) && typeof value === 'string') {
        (filter as Record<string, unknown>)[key] = value === '' ? [] : value.split(',');
      }
    }
  }
  return parsed;
}

/**
 * Keys qs never sets (allowPrototypes is false, so it skips any key Object.prototype has, like
 * `__proto__`, `constructor` or `toString`) and `prototype`: a parsed query silently lacks them,
 * so they are looked for in the raw query string. Returns each offending key as its parts, e.g.
 * `filter[__proto__][x]=1` -> ['filter', '__proto__'].
 */
const PROTOTYPE_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

export function prototypeKeysOf(rawQuery: string): string[][] {
  const found: string[][] = [];
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    let key = (eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
    try {
      key = decodeURIComponent(key);
    } catch {
      /* qs keeps an undecodable key as it is */
    }
    const parts = key.split(/[[\].]+/).filter(Boolean);
    const at = parts.findIndex((p) => PROTOTYPE_KEYS.has(p));
    if (at >= 0) found.push(parts.slice(0, at + 1));
    if (found.length >= 10) break;
  }
  return found;
}
