import jwt from 'jsonwebtoken';
import { createSecretKey } from 'node:crypto';
import type { Db } from '../db/knex';
import { isUuid } from '../db/columns';
import { ApiError, unauthorized } from '../errors';
import { FULL_ACCESS, type Caller } from './caller';
import type { CredentialCache } from './credential-cache';
import { hashSecret } from './secrets';
import { NEWEST } from '../versions/registry';

export const TOKEN_LIFETIME_SECONDS = 3600;

interface TokenClaims {
  sub: string;
  org: string;
  cid: string;
  exp?: number;
  /** RFC 6749 3.3: space-separated scopes. Absent on tokens issued before scopes (full access). */
  scope?: string;
}

/** A credential row's own rate limits (read with it: no query of their own). */
function limitsOf(row: { rate_limit_burst: number | null; rate_limit_hourly: number | null }): Caller['limits'] {
  return { burst: row.rate_limit_burst, hourly: row.rate_limit_hourly };
}

export function signToken(secret: string, claims: TokenClaims): string {
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS });
}

export type Authentication = { caller: Caller; error?: undefined } | { caller?: undefined; error: ApiError };

const failed = (message: string, given = true): Authentication => ({ error: unauthorized(message, given) });
const INVALID_KEY = 'The API key is invalid or has been revoked.';
const REVOKED_TOKEN = 'The access token has been revoked.';

/**
 * The credential of an `Authorization: Bearer <credential>` header, or the 401 for a header that
 * carries none (missing, another scheme, a malformed value). The mock (src/mock/) checks the same.
 */
export function bearerCredential(header: string | undefined): { credential: string; error?: undefined } | { credential?: undefined; error: ApiError } {
  if (!header) return { error: unauthorized('A bearer credential is required (Authorization: Bearer <token or API key>).', false) };
  const m = /^bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  if (!m) return { error: unauthorized('The Authorization header must be `Bearer <token or API key>`.', true) };
  return { credential: m[1] };
}

/**
 * Resolves `Authorization: Bearer <credential>` to the calling user. A JWT is an OAuth access token
 * (live while its client is not deleted); anything else is an API key, found by its hash (live
 * until rotated). A credential found live is kept in the cache (credential-cache.ts), which forgets
 * it the moment any instance revokes a credential.
 */
/**
 * A credential's first authenticated request pins it to the newest API version: later requests
 * without `Api-Version` keep running at it when newer versions come (moved with the admin CLI).
 * Another instance pinning it at the same moment wins alike (the newest either way).
 */
async function pinAtFirstUse(db: Db, table: 'api_keys' | 'oauth_clients', id: string): Promise<string> {
  const [row] = await db(table)
    .where({ id })
    .update({ api_version: db.raw('coalesce(api_version, ?)', [NEWEST]) }, ['api_version']);
  return row?.api_version ?? NEWEST;
}

export function makeAuthenticator(db: Db, jwtSecret: string, cache: CredentialCache) {
  // Given a string, jsonwebtoken first tries it as a public key (createPublicKey, which throws) on
  // every verification; a secret KeyObject made once skips that.
  const verifyKey = createSecretKey(Buffer.from(jwtSecret, 'utf8'));
  return async function authenticate(header: string | undefined): Promise<Authentication> {
    const given = bearerCredential(header);
    if (given.error) return { error: given.error };
    const credential = given.credential;
    const cached = cache.get(credential);
    if (cached) return { caller: cached };
    const generation = cache.begin();

    if (credential.split('.').length === 3) {
      let claims: TokenClaims;
      try {
        claims = jwt.verify(credential, verifyKey, { algorithms: ['HS256'] }) as TokenClaims;
      } catch (err) {
        const expired = (err as Error).name === 'TokenExpiredError';
        return failed(expired ? 'The access token has expired.' : 'The access token is invalid.');
      }
      // jsonwebtoken checks `exp` only when present: a token without one would never expire.
      if (typeof (claims as { exp?: unknown }).exp !== 'number') return failed('The access token has no expiry (exp); request a new token.');
      if (!isUuid(claims.cid) || !isUuid(claims.org) || !isUuid(claims.sub)) return failed('The access token is invalid.');
      const live = await db('oauth_clients')
        .where({ id: claims.cid, organization_id: claims.org, user_id: claims.sub })
        .whereNull('deleted_at')
        .first('id', 'client_id', 'rate_limit_burst', 'rate_limit_hourly', 'api_version');
      if (!live) return failed(REVOKED_TOKEN);
      const caller: Caller = {
        organizationId: claims.org,
        userId: claims.sub,
        via: 'oauth',
        credentialId: live.client_id,
        scopes: typeof claims.scope === 'string' ? claims.scope.split(' ') : FULL_ACCESS,
        limits: limitsOf(live),
        apiVersion: live.api_version ?? (await pinAtFirstUse(db, 'oauth_clients', live.id)),
      };
      // Trusted until the token itself expires, if sooner than the cache's TTL.
      cache.set(credential, caller, generation, claims.exp ? claims.exp * 1000 : undefined);
      return { caller };
    }

    const key = await db('api_keys')
      .where({ key_hash: hashSecret(credential) })
      .whereNull('revoked_at')
      .first('id', 'organization_id', 'user_id', 'scopes', 'rate_limit_burst', 'rate_limit_hourly', 'api_version');
    if (!key) return failed(INVALID_KEY);
    // A key's scopes, like its owner, never change: rotating with other scopes issues a new key.
    const caller: Caller = {
      organizationId: key.organization_id,
      userId: key.user_id,
      via: 'apiKey',
      credentialId: key.id,
      scopes: key.scopes ?? FULL_ACCESS,
      limits: limitsOf(key),
      apiVersion: key.api_version ?? (await pinAtFirstUse(db, 'api_keys', key.id)),
    };
    cache.set(credential, caller, generation);
    return { caller };
  };
}

export type Authenticator = ReturnType<typeof makeAuthenticator>;
