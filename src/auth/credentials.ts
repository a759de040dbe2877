import jwt from 'jsonwebtoken';
import type { Request, Response } from 'express';
import type { Db } from '../db/knex';
import { isUuid } from '../db/columns';
import { unauthorized } from '../http/errors';
import type { Caller } from '../http/handler';
import { hashSecret } from './secrets';
import type { CredentialCheck } from '../db/credential-check';

export const TOKEN_LIFETIME_SECONDS = 3600;

interface TokenClaims {
  sub: string;
  org: string;
  cid: string;
  /** RFC 8693 4.2 style: space-separated scopes. Absent on tokens issued before scopes (full access). */
  scope?: string;
}

export function signToken(secret: string, claims: TokenClaims): string {
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS });
}

/** Methods that never write: their credential check can ride on their first read. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);
const KEYS_MAX = 10_000;
const KEY_LIVE_SQL = 'EXISTS (SELECT 1 FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL)';
const CLIENT_LIVE_SQL = 'EXISTS (SELECT 1 FROM oauth_clients WHERE id = $1 AND organization_id = $2 AND user_id = $3 AND deleted_at IS NULL)';

function checkOf(sql: string, values: unknown[], message: string, fail: (message: string) => never): CredentialCheck {
  const check: CredentialCheck = {
    sql,
    values,
    claimed: false,
    settled: false,
    settle(live: boolean) {
      check.settled = true;
      if (!live) fail(message);
    },
  };
  return check;
}

/**
 * Resolves `Authorization: Bearer <credential>` to the calling user. A JWT is an OAuth access
 * token (checked against its client, so deleting the client revokes it at once); anything else is
 * an API key, found by its hash. Whether the credential is still live is always asked of the
 * database: before a write, in its own statement; for a read, in the same statement as the
 * request's first read (CredentialCheck), with the key's owner taken from a cache. Revocation is
 * never decided from process memory. On failure, the reason is left on res.locals.authError.
 */
export function makeAuthenticator(db: Db, jwtSecret: string) {
  // API key -> its hash and owner. Only keys found live are cached; a key's owner never changes.
  // Keyed by the key itself so a read does not hash it again (SHA-256 was ~2 % of a single read);
  // the process holds each key anyway while it answers its request, and never stores it.
  const keys = new Map<string, { hash: string; organizationId: string; userId: string; scopes: string[] }>();
  const throwUnauthorized = (message: string): never => {
    throw unauthorized(message, true);
  };

  return async function authenticate(req: Request, res?: Response): Promise<Caller | undefined> {
    const fail = (message: string, given: boolean) => {
      if (res) res.locals.authError = unauthorized(message, given);
      return undefined;
    };
    const header = req.headers.authorization;
    if (!header) return fail('A bearer credential is required (Authorization: Bearer <token or API key>).', false);
    const m = /^bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
    if (!m) return fail('The Authorization header must be `Bearer <token or API key>`.', true);
    const credential = m[1];
    const safe = SAFE_METHODS.has(req.method);

    if (credential.split('.').length === 3) {
      let claims: TokenClaims;
      try {
        claims = jwt.verify(credential, jwtSecret, { algorithms: ['HS256'] }) as TokenClaims;
      } catch (err) {
        const expired = (err as Error).name === 'TokenExpiredError';
        return fail(expired ? 'The access token has expired.' : 'The access token is invalid.', true);
      }
      if (!isUuid(claims.cid) || !isUuid(claims.org) || !isUuid(claims.sub)) return fail('The access token is invalid.', true);
      const revoked = 'The access token has been revoked.';
      const caller: Caller = { organizationId: claims.org, userId: claims.sub, via: 'oauth', scopes: typeof claims.scope === 'string' ? claims.scope.split(' ') : undefined };
      if (safe) {
        return { ...caller, check: checkOf(CLIENT_LIVE_SQL, [claims.cid, claims.org, claims.sub], revoked, throwUnauthorized) };
      }
      const live = await db('oauth_clients')
        .where({ id: claims.cid, organization_id: claims.org, user_id: claims.sub })
        .whereNull('deleted_at')
        .first('id');
      return live ? caller : fail(revoked, true);
    }

    const invalid = 'The API key is invalid or has been revoked.';
    const known = keys.get(credential);
    const hash = known?.hash ?? hashSecret(credential);
    if (known && safe) {
      const revoked = (message: string): never => {
        keys.delete(credential);
        return throwUnauthorized(message);
      };
      return { organizationId: known.organizationId, userId: known.userId, via: 'apiKey', scopes: known.scopes, check: checkOf(KEY_LIVE_SQL, [hash], invalid, revoked) };
    }
    const key = await db('api_keys').where({ key_hash: hash }).whereNull('revoked_at').first('organization_id', 'user_id', 'scopes');
    if (!key) {
      keys.delete(credential);
      return fail(invalid, true);
    }
    if (keys.size >= KEYS_MAX) keys.clear();
    // A key's scopes, like its owner, never change: rotating with other scopes issues a new key.
    keys.set(credential, { hash, organizationId: key.organization_id, userId: key.user_id, scopes: key.scopes });
    return { organizationId: key.organization_id, userId: key.user_id, via: 'apiKey', scopes: key.scopes };
  };
}
