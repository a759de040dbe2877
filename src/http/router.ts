import type OpenAPIBackend from 'openapi-backend';
import type { Operation, ParsedRequest, Request as BackendRequest } from 'openapi-backend';
import { invalidField } from './errors';

/**
 * openapi-backend rebuilds its operation list (lodash chains over the whole document) twice per
 * request and compiles a regex per operation to route it: ~1.3 ms per request with our ~116
 * operations, more than the database work of a single read. This installs an equivalent router
 * compiled once: the same normalization, exact paths first, then templates by specificity (the
 * length of their literal parts), the same 404/405 errors.
 */
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function installCompiledRouter(api: OpenAPIBackend): void {
  const router = api.router;
  const operations = router.getOperations();
  router.getOperations = () => operations;

  const routes = operations
    .map((op) => ({
      op,
      exact: !op.path.includes('{'),
      pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '\0').split('\0').map(escapeRegExp).join('[^/]+')}$`),
      specificity: op.path.replace(/\{.*?\}/g, '').length,
    }))
    // Exact paths first (as openapi-backend checks them first), then by specificity; stable.
    .sort((a, b) => Number(b.exact) - Number(a.exact) || b.specificity - a.specificity);

  // Routes by the request's first path segment and its number of segments (`{param}` matches one
  // whole segment; a route whose first segment is a template is in every bucket of its length),
  // each bucket in the order above: the same answer from a few candidates.
  const bucketOf = (path: string) => {
    const end = path.indexOf('/', 1);
    let segments = 1;
    for (let i = end; i >= 0; i = path.indexOf('/', i + 1)) segments++;
    return { first: end < 0 ? path.slice(1) : path.slice(1, end), segments };
  };
  const buckets = new Map<string, typeof routes>();
  const anyFirst = new Map<number, typeof routes>();
  for (const r of routes) {
    const { first, segments } = bucketOf(r.op.path);
    if (first.includes('{')) anyFirst.set(segments, [...(anyFirst.get(segments) ?? []), r]);
  }
  for (const r of routes) {
    const { first, segments } = bucketOf(r.op.path);
    const key = `${segments} ${first}`;
    if (first.includes('{') || buckets.has(key)) continue;
    buckets.set(
      key,
      routes.filter((x) => {
        const b = bucketOf(x.op.path);
        return b.segments === segments && (b.first === first || b.first.includes('{'));
      }),
    );
  }
  const candidates = (path: string) => {
    const { first, segments } = bucketOf(path);
    return buckets.get(`${segments} ${first}`) ?? anyFirst.get(segments) ?? [];
  };

  // Private in the typings, public at runtime: the apiRoot check stays openapi-backend's own.
  const isUnderApiRoot = (router as unknown as { isUnderApiRoot(path: string): boolean }).isUnderApiRoot.bind(router);
  router.matchOperation = ((req: { path: string; method: string }, strict?: boolean) => {
    const { path: requestPath, method } = normalize(req);
    if (!isUnderApiRoot(requestPath)) {
      if (strict) throw Error('404-notFound: no route matches request');
      return undefined;
    }
    const path = router.normalizePath(requestPath);
    let pathMatched = false;
    for (const r of candidates(path)) {
      if (r.exact ? r.op.path !== path : !r.pattern.test(path)) continue;
      pathMatched = true;
      if (r.op.method === method) return r.op;
    }
    if (strict) throw Error(pathMatched ? '405-methodNotAllowed: this method is not registered for the route' : '404-notFound: no route matches request');
    return undefined;
  }) as typeof router.matchOperation;
}

/** openapi-backend's normalizeRequest without copying the request: trimmed path with a leading slash and no query string, lower-case method. */
function normalize(req: { path?: string; method: string }): { path: string; method: string } {
  let path = req.path?.trim() || '';
  if (!path.startsWith('/')) path = `/${path}`;
  const q = path.indexOf('?');
  if (q >= 0) path = path.slice(0, q);
  return { path, method: req.method.trim().toLowerCase() };
}

/** A path value URI-decoded; one that is not valid percent-encoding (`%ZZ`) is the client's error, not ours. */
function decodePathValue(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidField(`path.${name}`, 'encoding', `${JSON.stringify(raw)} is not valid percent-encoding (RFC 3986).`);
  }
}

type Query = ParsedRequest['query'];

/** A copy of a parsed query (strings, arrays and nested objects from qs), so validation can coerce it. */
function copyQuery(value: unknown): any {
  if (Array.isArray(value)) return value.map(copyQuery);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) out[k] = copyQuery((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/**
 * openapi-backend parses each request four times (before and after routing, inside validation,
 * after coercion), and each time compiles the operation's path template, stringifies and deep-clones
 * the query and lower-cases the headers again. This installs an equivalent parser for the requests
 * our app sends it (an object query from express, a parsed or absent body, no cookie): templates
 * compiled once, the query copied once per call. Anything else (a cookie, a raw body, an operation
 * with a JSON-content or non-exploded query parameter) goes to openapi-backend's own parser.
 */
export function installFastRequestParser(api: OpenAPIBackend): void {
  const router = api.router;
  const original = router.parseRequest.bind(router);
  const needsOriginal = new Set(
    router
      .getOperations()
      .filter((op) => (op.parameters ?? []).some((p: any) => p.in === 'query' && (p.content?.['application/json'] || p.explode === false)))
      .map((op) => op.operationId),
  );
  const withHeaderParameters = new Set(
    router
      .getOperations()
      .filter((op) => (op.parameters ?? []).some((p: any) => p.in === 'header'))
      .map((op) => op.operationId),
  );
  const templates = new Map<string, { pattern: RegExp; names: string[] }>();
  // bath's matching (which openapi-backend uses): `{name}` matches any run of non-slashes, values
  // are URI-decoded, no match gives no params. Compiled once per template. (bath let a malformed
  // value's URIError through, a 500; here it is a 400 naming the parameter.)
  const pathParams = (template: string, path: string): Record<string, string> => {
    let compiled = templates.get(template);
    if (!compiled) {
      const names = [...template.matchAll(/\{([A-Za-z0-9_-]+)\}/g)].map((m) => m[1]);
      compiled = { pattern: new RegExp('^' + template.replace(/\{[A-Za-z0-9_-]+\}/g, '([^\\/]*)') + '$'), names };
      templates.set(template, compiled);
    }
    const m = compiled.pattern.exec(path);
    const params: Record<string, string> = {};
    if (m) for (let i = 0; i < compiled.names.length; i++) params[compiled.names[i]] = decodePathValue(compiled.names[i], m[i + 1]);
    return params;
  };

  router.parseRequest = ((req: BackendRequest, operation?: Operation) => {
    if (
      (operation && needsOriginal.has(operation.operationId)) ||
      typeof req.query !== 'object' ||
      (req.body && typeof req.body !== 'object') ||
      req.headers.cookie !== undefined
    ) {
      return original(req, operation);
    }
    const { path, method } = normalize(req);
    const params = operation ? pathParams(operation.path, router.normalizePath(path)) : {};
    // Node gives header names in lower case already. Validation coerces only declared header
    // parameters: without any, the headers need no copy of their own.
    const headers = (operation && !withHeaderParameters.has(operation.operationId) ? req.headers : { ...req.headers }) as ParsedRequest['headers'];
    // The fields of the request our app passes (and of validation's coerced copy of it), written
    // out: a spread of the request object cost more than the rest of the parse.
    return { method, path, headers, query: copyQuery(req.query) as Query, body: req.body, params, cookies: {}, requestBody: req.body };
  }) as typeof router.parseRequest;
}
