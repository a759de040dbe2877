import { harness } from './harness';
import { viaPrism } from './proxy';
import { createOrganization } from '../../src/admin/provision';

import type { ApiResponse, AtStatus, BodyRequired, JsonBody, OperationResponse, TakesRawBody } from './api-bodies';
import type { CheckedPath, Method, OperationOf } from './api-paths';

export type { PathOf } from './api-paths';

export type { ApiResponse } from './api-bodies';

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as is (no JSON encoding); with `contentType`. */
  raw?: string;
  contentType?: string;
  /** Omit the Authorization header. */
  anonymous?: boolean;
}

/** Options of a typed call: a raw body only where the contract's body is not JSON (the token form). */
type TypedOptions = Omit<RequestOptions, 'raw' | 'contentType'>;
type BodyArgs<Op> =
  TakesRawBody<Op> extends true
    ? [body: undefined, opts: TypedOptions & { raw: string; contentType: string }]
    : [JsonBody<Op>] extends [never]
      ? [body?: undefined, opts?: TypedOptions]
      : BodyRequired<Op> extends true
        ? [body: JsonBody<Op>, opts?: TypedOptions]
        : [body?: JsonBody<Op>, opts?: TypedOptions];
type Reply<M extends Method, P extends string> = Promise<OperationResponse<OperationOf<M, P>>>;

/**
 * The HTTP client of the black-box tests, typed by the contract (generated/api-types.ts): the path must
 * match a template that has an operation for the method (`/jobs/${code}/phases?limit=5`; a query string
 * is free text), the body must be that operation's request body schema, and the response is a union per
 * documented status, so `expectStatus(res, 200).body` (or `problemOf(res, 404)`, or `if (res.status ===
 * 200)`) has the schema of that status. A contract change that breaks a test's request fails to compile.
 *
 * `unchecked` is the one escape: `org.api.unchecked.post(...)` sends what it is given and returns an
 * untyped (`any`) body. Use it only for a request the contract forbids on purpose (an unknown or
 * mistyped field, a missing required field, an undocumented path or method such as HEAD, a raw body),
 * or one whose method and path a table or the contract document gives at run time (say so there), so
 * `grep -rn '\.unchecked\.' test` lists every such request. A helper that takes a path from its caller
 * types it `PathOf<'get'>` (checked at the caller); `RequestBody<'post', '/order/x/tags'>` names a body.
 */
export class Client {
  /** Sends any request, unchecked by the contract: for bad input and run-time tables only (see the class comment). */
  readonly unchecked: UncheckedClient;

  constructor(credential?: string) {
    this.unchecked = new UncheckedClient(credential);
  }

  get<P extends string>(path: CheckedPath<'get', P>, opts?: TypedOptions): Reply<'get', P> {
    return this.unchecked.get(path as string, opts) as Reply<'get', P>;
  }
  delete<P extends string>(path: CheckedPath<'delete', P>, opts?: TypedOptions): Reply<'delete', P> {
    return this.unchecked.delete(path as string, opts) as Reply<'delete', P>;
  }
  post<P extends string>(path: CheckedPath<'post', P>, ...[body, opts]: BodyArgs<OperationOf<'post', P>>): Reply<'post', P> {
    return this.unchecked.post(path as string, body, opts) as Reply<'post', P>;
  }
  patch<P extends string>(path: CheckedPath<'patch', P>, ...[body, opts]: BodyArgs<OperationOf<'patch', P>>): Reply<'patch', P> {
    return this.unchecked.patch(path as string, body, opts) as Reply<'patch', P>;
  }
  put<P extends string>(path: CheckedPath<'put', P>, ...[body, opts]: BodyArgs<OperationOf<'put', P>>): Reply<'put', P> {
    return this.unchecked.put(path as string, body, opts) as Reply<'put', P>;
  }
}

/** Any method, path and body, no contract check; every call returns status, headers and parsed body. */
export class UncheckedClient {
  constructor(private readonly credential?: string) {}

  async request(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.credential && !opts.anonymous && !headers.Authorization) headers.Authorization = `Bearer ${this.credential}`;
    let payload: string | undefined;
    if (opts.raw !== undefined) {
      payload = opts.raw;
      if (opts.contentType) headers['Content-Type'] = opts.contentType;
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
    }
    const res = await fetch(harness().baseUrl + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: any = text;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    if (viaPrism) checkPrism(method, path, res.headers, parsed);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, opts?: RequestOptions) {
    return this.request('GET', path, undefined, opts);
  }
  post(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('POST', path, body, opts);
  }
  patch(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('PATCH', path, body, opts);
  }
  put(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request('PUT', path, body, opts);
  }
  delete(path: string, opts?: RequestOptions) {
    return this.request('DELETE', path, undefined, opts);
  }
}

/**
 * Through `prism proxy --errors` (test/support/proxy.ts), a response that Prism made itself means
 * the request or our response broke the contract: fail the test that sent it, naming the request.
 */
function checkPrism(method: string, path: string, headers: Headers, body: any): void {
  const violations = headers.get('sl-violations');
  const own = typeof body?.type === 'string' && body.type.startsWith('https://stoplight.io/prism/errors#');
  if (!violations && !own) return;
  throw new Error(
    `Prism answered ${method} ${path} itself (${own ? body.type.split('#')[1] : 'violations'}): ${violations ?? JSON.stringify(body).slice(0, 1500)}\n` +
      'A response violation is a server bug; a request the contract forbids only runs directly (itDirect/onlyDirect in test/support/proxy.ts).',
  );
}

export interface TestOrg {
  id: string;
  name: string;
  userId: string;
  apiKey: string;
  clientId: string;
  clientSecret: string;
  /** A client authenticated with the organization's API key. */
  api: Client;
}

let counter = 0;

/** A fresh organization (admin user, API key, OAuth client), provisioned like the admin CLI does. */
export async function newOrg(name?: string): Promise<TestOrg> {
  counter += 1;
  const unique = `${process.pid}-${counter}-${Date.now()}`;
  const org = await createOrganization(harness().db, {
    name: name ?? `Test Builders ${unique}`,
    adminEmail: `admin.${unique}@builders.example`,
  });
  return {
    id: org.organization.id,
    name: org.organization.name,
    userId: org.user.id,
    apiKey: org.apiKey,
    clientId: org.oauthClient.clientId,
    clientSecret: org.oauthClient.clientSecret,
    api: new Client(org.apiKey),
  };
}

export const anonymous = () => new Client();

/** Expect a problem+json error body with the given status; returns the body. */
export function problemOf(res: ApiResponse, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) throw new Error(`expected application/problem+json, got ${type}`);
  const b = res.body;
  for (const k of ['type', 'title', 'status', 'detail', 'requestId', 'errors']) {
    if (!(k in b)) throw new Error(`problem body lacks ${k}: ${res.text}`);
  }
  if (!Array.isArray(b.errors) || b.errors.length === 0 || typeof b.errors[0].message !== 'string') throw new Error(`problem errors malformed: ${res.text}`);
  return b as { type: string; title: string; status: number; detail: string; requestId: string; errors: { message: string; field?: string; rule?: string }[] };
}

/** Throws with the response text when the status is not the expected one (readable failures). */
export function expectStatus<R extends ApiResponse, S extends R['status']>(res: R, status: S): AtStatus<R, S> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 2000)}`);
  return res as AtStatus<R, S>;
}

/** The JSON body the contract takes for method M on the concrete path P: `RequestBody<'post', '/order/x/tags'>`. */
export type RequestBody<M extends Method, P extends string> = JsonBody<OperationOf<M, P>>;
