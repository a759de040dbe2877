/** A contract object with its `$ref` followed (through chained refs) within `doc`; anything else as it is. */
export function resolveRef(doc: unknown, x: any): any {
  if (!x?.$ref) return x;
  const target = String(x.$ref)
    .split('/')
    .slice(1)
    .reduce((o: any, k: string) => o?.[k], doc);
  return resolveRef(doc, target);
}
