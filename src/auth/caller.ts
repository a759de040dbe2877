/**
 * The authenticated caller: a user of one organization, through an API key or an OAuth client.
 * Extensible: later fields (scopes granted to an OAuth client, ...) go here, with a default that
 * keeps today's meaning.
 */
export interface Caller {
  organizationId: string;
  userId: string;
  via: 'apiKey' | 'oauth';
  /** The credential's public id: the OAuth client id (`cl_...`) or the API key's id; never a secret (a change's origin). */
  credentialId: string;
  /** What the credential may do; `['*']` (the default) is full access. */
  scopes: readonly string[];
  /**
   * The credential's own rate limits (requests per second, per hour), held to in addition to its
   * organization's; absent (or null): only the organization's limits apply. Fixed when the
   * credential is issued, like its scopes.
   */
  limits?: { burst: number | null; hourly: number | null };
  /** The API version the credential is pinned to (requests without `Api-Version` run at it); set at its first authenticated request. */
  apiVersion?: string;
}

export const FULL_ACCESS: readonly string[] = Object.freeze(['*']);
