// Builds client/src/list-paging.mts from the bundled contract (called by scripts/generate.mjs, so
// `npm run check:generated` fails when the contract's lists change and the table did not): for each
// GET that takes `limit`, the largest page the contract allows and how the list pages.

/** The table's TypeScript source for the bundled OpenAPI document `doc`. */
export function listPaging(doc) {
  const param = (p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p);
  const rows = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!item.get) continue;
    const query = [...(item.parameters ?? []), ...(item.get.parameters ?? [])].map(param).filter((p) => p.in === 'query');
    const limit = query.find((p) => p.name === 'limit');
    if (!limit) continue;
    const names = new Set(query.map((p) => p.name));
    // The feed pages by `after`; the bulk lists by the keyset `cursor`; every other list by `offset`.
    const mode = names.has('after') ? 'feed' : names.has('cursor') ? 'keyset' : 'offset';
    rows.push(`  '${path}': { mode: '${mode}', maxLimit: ${limit.schema?.maximum ?? 'undefined'} },`);
  }
  return [
    '// GENERATED from api/ by `npm run generate` (client/scripts/list-paging.mjs). Do not edit by hand.',
    '',
    '/** How a list pages: the feed by `after`, the bulk lists by the keyset `cursor`, the others by `offset`. */',
    "export type PagingMode = 'feed' | 'keyset' | 'offset';",
    '',
    '/** Every list of the contract: its paging and the largest `limit` it allows (undefined: the default page). */',
    'export const listPaging: Record<string, { mode: PagingMode; maxLimit: number | undefined }> = {',
    ...rows,
    '};',
    '',
  ].join('\n');
}
