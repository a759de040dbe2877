import type { paths } from '../../generated/api-types.js';
import { dataOf } from './api-error.mjs';
import type { ProcurementClient } from './client.mjs';
import { listPaging } from './list-paging.mjs';

type GetOf<P> = P extends keyof paths ? (paths[P] extends { get: infer O } ? O : never) : never;
type PageOf<P> = GetOf<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/** The object type of a list: the element of its array, or of its page's `data`. */
export type ListItem<P> = PageOf<P> extends readonly (infer T)[] ? T : PageOf<P> extends { data: readonly (infer T)[] } ? T : never;
/** Every path whose GET is a list (it takes `limit`). */
export type ListPath = {
  [P in keyof paths]: GetOf<P> extends { parameters: { query?: infer Q } } ? ('limit' extends keyof NonNullable<Q> ? P : never) : never;
}[keyof paths];
type QueryOf<P> = GetOf<P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParamsOf<P> = GetOf<P> extends { parameters: { path: infer X } } ? X : never;

/** `query`: the operation's query (the paging parameters are the iterator's); `path`: its path parameters. */
export type PaginateOptions<P extends ListPath> = { query?: QueryOf<P> } & ([PathParamsOf<P>] extends [never] ? { path?: never } : { path: PathParamsOf<P> });

/**
 * Every object of a list, page after page, at the largest page the contract allows (or
 * `query.limit`): by `offset` for most lists; by the keyset `cursor` for the bulk lists (from
 * `query.cursor`, default `start`, unless `query.offset` is given); by `after` for the feed
 * (`GET /changes`, up to the newest entry, from `query.after` or the oldest entry kept).
 */
export async function* paginate<P extends ListPath>(
  client: ProcurementClient,
  path: P,
  ...[options]: OptionsArg<P>
): AsyncGenerator<ListItem<P>, void, undefined> {
  const paging = listPaging[path];
  if (!paging) throw new TypeError(`paginate: ${path} is not a list of the contract`);
  const query: Record<string, unknown> = { ...(options?.query as Record<string, unknown> | undefined) };
  query.limit ??= paging.maxLimit;
  const get = async (q: Record<string, unknown>): Promise<any> => {
    const params = { query: q, path: (options as { path?: unknown } | undefined)?.path };
    return dataOf(`GET ${path}`, await (client.GET as (p: string, init: unknown) => Promise<any>)(path, { params }));
  };
  if (paging.mode === 'feed') {
    for (;;) {
      const page = await get(query);
      yield* page.data;
      if (!page.hasMore) return;
      query.after = page.nextCursor;
    }
  }
  if (paging.mode === 'keyset' && query.offset === undefined) {
    query.cursor ??= 'start';
    for (;;) {
      const page = await get(query);
      yield* page.data;
      if (!page.meta.nextCursor) return;
      query.cursor = page.meta.nextCursor;
    }
  }
  let offset = Number(query.offset ?? 0);
  for (;;) {
    const page = await get({ ...query, offset });
    const rows: unknown[] = Array.isArray(page) ? page : page.data;
    yield* rows as ListItem<P>[];
    offset += rows.length;
    // A short page is the last; a page with a total says so itself.
    const total = Array.isArray(page) ? undefined : page.meta?.total;
    if (rows.length === 0 || (total !== undefined ? offset >= total : query.limit !== undefined && rows.length < Number(query.limit))) return;
  }
}

type OptionsArg<P extends ListPath> = [PathParamsOf<P>] extends [never] ? [options?: PaginateOptions<P>] : [options: PaginateOptions<P>];
