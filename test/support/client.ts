import { harness } from './harness';
import { viaPrism } from './proxy';
import { createOrganization } from '../../src/admin/provision';

/** A small HTTP client for black-box tests: every call returns status, headers and parsed body. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as is (no JSON encoding); with `contentType`. */
  raw?: string;
  contentType?: string;
  /** Omit the Authorization header. */
  anonymous?: boolean;
}

export class Client {
  constructor(private readonly credential?: string) {}

  async request<T = any>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
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
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, undefined, opts);
  }
  post<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('POST', path, body, opts);
  }
  patch<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PATCH', path, body, opts);
  }
  put<T = any>(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PUT', path, body, opts);
  }
  delete<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('DELETE', path, undefined, opts);
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
export function expectStatus<T>(res: ApiResponse<T>, status: number): ApiResponse<T> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 2000)}`);
  return res;
}
