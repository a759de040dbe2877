import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/api-types.js';
import { API_VERSION } from './api-version.mjs';
import { apiKeyCredential, ClientCredentials, type Credential } from './oauth.mjs';
import { querySerializer } from './query.mjs';
import { sendWithRetries, type RetryOptions } from './retry.mjs';

/** A client of the API: openapi-fetch's, typed by the contract (`client.GET('/jobs/{jobIdOrCode}', ...)`). */
export type ProcurementClient = Client<paths, 'application/json'>;

interface CommonOptions {
  /** The service's base URL, e.g. `https://api.example-procurement.com`. */
  baseUrl: string;
  /** The retry policy (retry.mts), or `false` for a single attempt per call. */
  retry?: RetryOptions | false;
  /**
   * Give every POST, PATCH and DELETE without an `Idempotency-Key` one (a new UUID per call, reused
   * on each of its attempts), so that writes can be retried safely (default true). Off, a write
   * without a key is never retried.
   */
  idempotencyKeys?: boolean;
  /** The fetch to send with (default the global one). */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

export type ClientOptions = CommonOptions & ({ apiKey: string } | { clientId: string; clientSecret: string });

// Methods a retry cannot repeat the effect of (RFC 9110 9.2.2); POST, PATCH and DELETE need an Idempotency-Key.
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT']);

/**
 * A client of the API with an API key or OAuth client credentials: every call is openapi-fetch's
 * (`{ data, error, response }`), sent with the credential, the kit's `Api-Version`, an
 * `Idempotency-Key` on writes and the retry policy, and with the service's filter syntax.
 */
export function createClient(options: ClientOptions): ProcurementClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? globalThis.fetch;
  const retry = options.retry === false ? { maxAttempts: 1 } : options.retry;
  const credential: Credential =
    'apiKey' in options ? apiKeyCredential(options.apiKey) : new ClientCredentials(baseUrl, options.clientId, options.clientSecret, send, retry);
  const keys = options.idempotencyKeys ?? true;

  const kitFetch = async (request: Request): Promise<Response> => {
    const method = request.method.toUpperCase();
    // Read once: every attempt sends the same bytes.
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    // A request without a body can be sent again as it is: its own headers are set (no copy per read).
    const headers = body === undefined ? request.headers : new Headers(request.headers);
    if (API_VERSION !== undefined) headers.set('Api-Version', API_VERSION);
    const write = !IDEMPOTENT_METHODS.has(method);
    if (write && keys && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
    const retryable = !write || headers.has('Idempotency-Key');
    let refreshed = false;
    const attempt = async (): Promise<Response> => {
      for (;;) {
        const token = await credential.token();
        headers.set('Authorization', `Bearer ${token}`);
        const response = await send(
          body === undefined ? request : new Request(request.url, { method, headers, body, signal: request.signal, redirect: request.redirect }),
        );
        // An OAuth token refused (revoked, or expired early): a 401 did nothing, so one new token and the same request.
        if (response.status === 401 && !refreshed && credential.refused(token)) {
          refreshed = true;
          await response.body?.cancel().catch(() => undefined);
          continue;
        }
        return response;
      }
    };
    return sendWithRetries(attempt, retryable, retry, request.signal);
  };

  return createFetchClient<paths, 'application/json'>({ baseUrl, fetch: kitFetch, querySerializer, headers: options.headers });
}
