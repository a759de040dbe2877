/**
 * Who made a change (contract ChangeOrigin): the credential of the API request that wrote it, or
 * `system` for a write made without one (admin CLI, demo data, retention, the webhook worker), or
 * `database` for a change made to the tables directly (DATABASE_ORIGIN).
 * Stored with every feed entry in the same statement (append.ts); never a secret.
 */
export interface Origin {
  credentialType: 'oauth_client' | 'api_key' | 'system' | 'database';
  /** The OAuth client id (`cl_...`) or the API key's id (as `admin org show` lists it); null for system. */
  credentialId: string | null;
  /** The X-Request-Id of the write's response; null for system. */
  requestId: string | null;
  idempotencyKey: string | null;
}

export const SYSTEM_ORIGIN: Origin = Object.freeze({ credentialType: 'system', credentialId: null, requestId: null, idempotencyKey: null });

/**
 * A change found in the database rather than made through the service (an operator's SQL, a
 * `COPY`, a migration): captured by the triggers of migration 20261206000000 and appended by the
 * worker's `feed_capture` task (src/resources/reconciliation/captures.ts).
 */
export const DATABASE_ORIGIN: Origin = Object.freeze({ credentialType: 'database', credentialId: null, requestId: null, idempotencyKey: null });
