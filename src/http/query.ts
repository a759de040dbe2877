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
