import jwt from 'jsonwebtoken';
import type { Request, Response } from 'express';
import type { Db } from '../db/knex';
import { isUuid } from '../db/columns';
import { unauthorized } from '../http/errors';
import type { Caller } from '../http/handler';
import { hashSecret } from './secrets';

export const TOKEN_LIFETIME_SECONDS = 3600;

interface TokenClaims {
  sub: string;
  org: string;
  cid: string;
}

export function signToken(secret: string, claims: TokenClaims): string {
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS });
}

/**
 * Resolves `Authorization: Bearer <credential>` to the calling user. A JWT is an OAuth access
 * token (checked against its client, so deleting the client revokes it at once); anything else is
 * looked up as an API key by its hash. Revocation lives in the database, not in process memory.
 * On failure, the reason is left on res.locals.authError for the 401.
 */
export function makeAuthenticator(db: Db, jwtSecret: string) {
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

    if (credential.split('.').length === 3) {
      let claims: TokenClaims;
      try {
        claims = jwt.verify(credential, jwtSecret, { algorithms: ['HS256'] }) as TokenClaims;
      } catch (err) {
        const expired = (err as Error).name === 'TokenExpiredError';
        return fail(expired ? 'The access token has expired.' : 'The access token is invalid.', true);
      }
      if (!isUuid(claims.cid) || !isUuid(claims.org) || !isUuid(claims.sub)) return fail('The access token is invalid.', true);
      const live = await db('oauth_clients')
        .where({ id: claims.cid, organization_id: claims.org, user_id: claims.sub })
        .whereNull('deleted_at')
        .first('id');
      if (!live) return fail('The access token has been revoked.', true);
      return { organizationId: claims.org, userId: claims.sub, via: 'oauth' };
    }

    const key = await db('api_keys').where({ key_hash: hashSecret(credential) }).whereNull('revoked_at').first('organization_id', 'user_id');
    if (!key) return fail('The API key is invalid or has been revoked.', true);
    return { organizationId: key.organization_id, userId: key.user_id, via: 'apiKey' };
  };
}
