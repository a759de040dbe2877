/**
 * Who made a change (contract ChangeOrigin): the credential of the API request that wrote it, or
 * `system` for a write made without one (admin CLI, demo data, retention, the webhook worker).
 * Stored with every feed entry in the same statement (append.ts); never a secret.
 */
export interface Origin {
  credentialType: 'oauth_client' | 'api_key' | 'system';
  /** The OAuth client id (`cl_...`) or the API key's id (as `admin org show` lists it); null for system. */
  credentialId: string | null;
  /** The X-Request-Id of the write's response; null for system. */
  requestId: string | null;
  idempotencyKey: string | null;
}

export const SYSTEM_ORIGIN: Origin = Object.freeze({ credentialType: 'system', credentialId: null, requestId: null, idempotencyKey: null });
