import { ApiError } from './api-error.mjs';
import { API_VERSION } from './api-version.mjs';
import { sendWithRetries, type RetryOptions } from './retry.mjs';

/** Where a request's bearer credential comes from: an API key, or OAuth client credentials. */
export interface Credential {
  token(): Promise<string>;
  /** The service refused `token` (401): a credential that can fetch another one forgets it. */
  refused(token: string): boolean;
}

export const apiKeyCredential = (apiKey: string): Credential => ({ token: async () => apiKey, refused: () => false });

/**
 * OAuth 2.0 client credentials (RFC 6749 section 4.4, `POST /oauth2/token`): a token is fetched on
 * first use and again before it expires (at 90 % of its lifetime, at most a minute early), one
 * request at a time: concurrent calls share the request in flight.
 */
export class ClientCredentials implements Credential {
  private current?: { value: string; refreshAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly baseUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly send: typeof fetch,
    private readonly retry?: RetryOptions,
  ) {}

  token(): Promise<string> {
    if (this.current && Date.now() < this.current.refreshAt) return Promise.resolve(this.current.value);
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  refused(token: string): boolean {
    if (this.current?.value === token) this.current = undefined;
    return true;
  }

  private async fetchToken(): Promise<string> {
    const started = Date.now();
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (API_VERSION !== undefined) headers['Api-Version'] = API_VERSION;
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.clientId, client_secret: this.clientSecret }).toString();
    // Asking for a token twice is harmless: the request is retried like a read.
    const response = await sendWithRetries(() => this.send(`${this.baseUrl}/oauth2/token`, { method: 'POST', headers, body }), true, this.retry);
    const answer = (await response.json().catch(() => undefined)) as { access_token?: string; expires_in?: number } | undefined;
    if (!response.ok || typeof answer?.access_token !== 'string') throw new ApiError('POST /oauth2/token', response.status, answer);
    const lifetimeMs = (answer.expires_in ?? 3600) * 1000;
    this.current = { value: answer.access_token, refreshAt: started + lifetimeMs - Math.min(60_000, lifetimeMs / 10) };
    return answer.access_token;
  }
}
