/**
 * The query string of a request, as the service reads it (guide "Filters and pagination"):
 * `filter: { state: 'OPEN', code_in: ['A', 'B'] }` becomes `filter[state]=OPEN&filter[code_in][]=A&filter[code_in][]=B`,
 * a top-level array (`types`, `fields`, `excludeOrigins`) is repeated (`types=a&types=b`), dates
 * are ISO 8601. openapi-fetch's own serializer refuses arrays inside objects.
 */
export function querySerializer(query: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    parts.push(`${key}=${encodeURIComponent(value instanceof Date ? value.toISOString() : String(value))}`);
  };
  for (const [name, value] of Object.entries(query)) {
    const key = encodeURIComponent(name);
    if (Array.isArray(value)) {
      for (const v of value) add(key, v);
    } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      for (const [field, v] of Object.entries(value)) {
        const inner = `${key}[${encodeURIComponent(field)}]`;
        if (Array.isArray(v)) for (const each of v) add(`${inner}[]`, each);
        else add(inner, v);
      }
    } else {
      add(key, value);
    }
  }
  return parts.join('&');
}
