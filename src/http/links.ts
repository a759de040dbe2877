import type { Request } from 'express';
import type { Operation } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { JsonParts, JsonStream } from '../db/json';

/**
 * The links a reply carries, driven by the contract like the ETag (conditional.ts):
 * - a `201` that declares `Location` names the created object's single read: the request's path
 *   and the new object's id (`POST /vendors` -> `/vendors/<id>`), or the request's path itself when
 *   that is the read (`POST /jobs/{job}/billOfMaterials`, the job's one bill of materials);
 * - a list's `200` that declares `Link` carries `rel="next"` (RFC 8288) on a page that has a next
 *   one: the request's query with `offset` past the page, or with `cursor` set to the page's
 *   `meta.nextCursor`. A bare array page is followed when it is full (as many objects as `limit`,
 *   the rule `meta.nextCursor` follows too); a `{meta, data}` page paged by offset knows its total;
 *   a page that names its next query itself (JsonParts.nextQuery: the change feed's `after` while
 *   `hasMore`) is followed by that.
 * Added inside the write's transaction and Idempotency-Key, so a replayed create carries them too.
 */

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

// The operations are openapi-backend's, of the document it dereferenced at init: no `$ref` is left in them.
const responseOf = (operation: Operation, status: string) => operation.responses?.[status] as OpenAPIV3.ResponseObject | undefined;
const parametersOf = (operation: Operation | undefined) => (operation?.parameters ?? []) as OpenAPIV3.ParameterObject[];

/** The path templates of the single reads (a GET whose 200 declares an ETag). */
export function singleReadPaths(operations: Operation[]): Set<string> {
  return new Set(operations.filter((o) => o.method === 'get' && responseOf(o, '200')?.headers?.ETag).map((o) => o.path));
}

const declares = (operation: Operation, status: string, header: string) => Boolean(responseOf(operation, status)?.headers?.[header]);

/** Where the object a create made is read, from its path template: undefined when the contract has no such read. */
function locationRule(operation: Operation, reads: ReadonlySet<string>): 'id' | 'self' | undefined {
  const child = [...reads].find((p) => p.startsWith(operation.path + '/{') && p.indexOf('/', operation.path.length + 1) === -1);
  return child ? 'id' : reads.has(operation.path) ? 'self' : undefined;
}

/** The number of objects of a list page, when its body says it without being parsed. */
function pageLength(body: unknown, valueOf: (body: unknown) => unknown): number | undefined {
  if (Array.isArray(body)) return body.length;
  if (body instanceof JsonParts) return body.elementCount;
  if (typeof body === 'string') {
    const value = valueOf(body);
    return Array.isArray(value) ? value.length : undefined;
  }
  return undefined;
}

/** The query of the next page, or undefined on the last one. */
function nextQuery(
  body: unknown,
  query: Record<string, unknown>,
  defaultLimit: number,
  valueOf: (body: unknown) => unknown,
): Record<string, string> | undefined {
  if (body instanceof JsonParts && body.nextQuery !== undefined) return body.nextQuery ?? undefined;
  const page = body instanceof JsonStream ? body.page : undefined;
  if (page) {
    if (page.nextCursor !== undefined) return page.nextCursor ? { cursor: page.nextCursor } : undefined;
    return page.offset + page.limit < page.total ? { offset: String(page.offset + page.limit) } : undefined;
  }
  // The page size the list used: the client's limit, unless the list caps it (JsonParts.pageLimit).
  const limit = body instanceof JsonParts && body.pageLimit !== undefined ? body.pageLimit : query.limit === undefined ? defaultLimit : Number(query.limit);
  const length = pageLength(body, valueOf);
  if (length === undefined || !(length > 0) || length < limit) return undefined;
  return { offset: String(Number(query.offset ?? 0) + length) };
}

/** The URL of the same request with the given query parameters set (the others kept as sent). */
function withQuery(req: Request, set: Record<string, string>): string {
  const [path, search = ''] = req.originalUrl.split('?', 2);
  const params = new URLSearchParams(search);
  for (const [name, value] of Object.entries(set)) params.set(name, value);
  return `${path}?${params}`;
}

/** `operations` is read at the first use, after openapi-backend's init (the document dereferenced). */
export function replyLinks(operationOf: (id: string) => Operation | undefined, operations: () => Operation[]) {
  let reads: ReadonlySet<string> | undefined;
  const rules = new Map<string, { location?: 'id' | 'self'; link: boolean; defaultLimit: number }>();
  const rulesOf = (id: string) => {
    let found = rules.get(id);
    if (!found) {
      const operation = operationOf(id);
      const limit = parametersOf(operation).find((p) => p.in === 'query' && p.name === 'limit');
      found = { link: false, defaultLimit: Number((limit?.schema as OpenAPIV3.SchemaObject | undefined)?.default ?? Infinity) };
      if (operation && declares(operation, '201', 'Location')) {
        reads ??= singleReadPaths(operations());
        found.location = locationRule(operation, reads);
        if (!found.location) throw new Error(`${id} declares Location but the contract has no single read at its path`);
      }
      if (operation && declares(operation, '200', 'Link')) found.link = true;
      rules.set(id, found);
    }
    return found;
  };

  /** Checked at start: every create that declares Location has a read to point at. */
  const check = (ids: string[]) => ids.forEach(rulesOf);

  /** `valueOf` turns a reply body into a value (parsed once per request: operation.ts). */
  function add(id: string, req: Request, query: Record<string, unknown>, reply: Reply, valueOf: (body: unknown) => unknown): Reply {
    const rule = rulesOf(id);
    if (reply.status === 201 && rule.location) {
      const path = (req.baseUrl + req.path).replace(/\/+$/, '');
      const { id: objectId } = valueOf(reply.body) as { id: string };
      const location = rule.location === 'id' ? `${path}/${encodeURIComponent(objectId)}` : path;
      return { ...reply, headers: { ...reply.headers, Location: location } };
    }
    if (reply.status === 200 && rule.link) {
      const next = nextQuery(reply.body, query, rule.defaultLimit, valueOf);
      if (next) return { ...reply, headers: { ...reply.headers, Link: `<${withQuery(req, next)}>; rel="next"` } };
    }
    return reply;
  }
  /** Whether the operation carries either (checked at start: a create that declares Location has a read to point at). */
  const applies = (id: string) => {
    const rule = rulesOf(id);
    return rule.link || rule.location !== undefined;
  };
  return { add, check, applies };
}
