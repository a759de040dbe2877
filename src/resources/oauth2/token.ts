import type { Request, Response } from 'express';
import type { Db } from '../../db/knex';
import type { Handlers } from '../../http/handler';
import { TOKEN_LIFETIME_SECONDS, signToken } from '../../auth/credentials';
import { hashSecret, sameHash } from '../../auth/secrets';
import { withTokenGuard } from './token-guard';
import { grantedScopes } from '../../auth/scopes';

/** RFC 6749 section 5.1: token responses must not be cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

function oauthError(
  status: 400,
  error: OAuthErrorCode,
  description: string,
): { status: 400; body: { error: OAuthErrorCode; error_description: string }; headers: Record<string, string> };
function oauthError(
  status: 401,
  error: OAuthErrorCode,
  description: string,
  basic: boolean,
): { status: 401; body: { error: OAuthErrorCode; error_description: string }; headers: Record<string, string> };
function oauthError(status: 400 | 401, error: OAuthErrorCode, description: string, basic = false) {
  const headers: Record<string, string> = { ...NO_STORE };
  // RFC 6749 5.2: when the client authenticated with HTTP Basic, a 401 carries the challenge.
  if (status === 401 && basic) headers['WWW-Authenticate'] = 'Basic realm="oauth2", charset="UTF-8"';
  return { status, body: { error, error_description: description }, headers };
}

/** RFC 6749 2.3.1: client_id and client_secret, each form-urlencoded, in HTTP Basic. */
function basicCredentials(req: Request): { id: string; secret: string } | null | undefined {
  const header = req.headers.authorization;
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: dec(decoded.slice(0, colon)), secret: dec(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** A malformed token request, answered in RFC 6749 5.2's form. */
export function answerInvalidTokenRequest(res: Response, description: string): void {
  res.status(400).set(NO_STORE).json({ error: 'invalid_request', error_description: description });
}

const FORM = 'application/x-www-form-urlencoded';

/**
 * What is wrong with a token request that is not a well-formed form, or undefined: no body, another
 * media type, a charset other than UTF-8 (RFC 6749 B: the form is UTF-8; body-parser would also
 * read ISO-8859-1).
 */
function formProblem(req: Request): string | undefined {
  const empty = Number(req.headers['content-length'] ?? 0) === 0 && req.headers['transfer-encoding'] === undefined;
  if (empty) {
    return Object.keys(req.query ?? {}).length
      ? `The parameters go in a form body (${FORM}), not in the query string.`
      : `The request needs a form body (${FORM}) with grant_type and the client's credentials.`;
  }
  if (!req.is(FORM)) return `The request body must be ${FORM}.`;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) return `The form must be UTF-8 (charset=utf-8), not ${charset}.`;
  return undefined;
}

/** Answers a token request the validator rejected in RFC form, naming what is wrong with it. */
export function tokenValidationFail(req: Request, res: Response, errors: readonly { keyword: string; params?: Record<string, unknown> }[] = []): void {
  const missing = errors.find((e) => e.keyword === 'required')?.params?.missingProperty;
  answerInvalidTokenRequest(
    res,
    formProblem(req) ?? (typeof missing === 'string' ? `${missing} is required.` : 'Each parameter must be given once, as a string.'),
  );
}

export function tokenHandlers(jwtSecret: string): Handlers<'issueToken'> {
  return {
    issueToken: async ({ req, res, db, body }) => {
      const problem = formProblem(req);
      if (problem) return oauthError(400, 'invalid_request', problem);
      const form = (body ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(form)) {
        if (typeof v !== 'string') return oauthError(400, 'invalid_request', `Parameter ${k} must be given once.`);
      }
      const basic = basicCredentials(req);
      if (basic === null) return oauthError(401, 'invalid_client', 'The Basic credentials are malformed.', true);
      if (basic && (form.client_id !== undefined || form.client_secret !== undefined)) {
        return oauthError(400, 'invalid_request', 'Use one client authentication method: HTTP Basic or the body, not both.');
      }
      if (!form.grant_type) return oauthError(400, 'invalid_request', 'grant_type is required.');
      if (form.grant_type !== 'client_credentials') {
        return oauthError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
      }
      const clientId = basic ? basic.id : (form.client_id as string | undefined);
      const secret = basic ? basic.secret : (form.client_secret as string | undefined);
      if (!clientId || !secret) return oauthError(401, 'invalid_client', 'Client authentication is required (client_id and client_secret).', !!basic);

      // Guessing secrets is throttled per (client id, address): see src/resources/oauth2/token-guard.ts.
      const client = await withTokenGuard(db, req, res, clientId, async () => {
        const found = await findClient(db, clientId);
        return found && sameHash(found.secret_hash, hashSecret(secret)) ? found : undefined;
      });
      if (!client) return oauthError(401, 'invalid_client', 'Client authentication failed.', !!basic);
      const scope = grantedScopes(client.scopes, form.scope as string | undefined);
      if (scope === undefined) return oauthError(400, 'invalid_scope', `scope may name only this client's scopes: ${client.scopes.join(' ')}.`);
      const token = signToken(jwtSecret, { sub: client.user_id, org: client.organization_id, cid: client.id, scope });
      return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope }, headers: NO_STORE };
    },
  };
}

async function findClient(db: Db, clientId: string) {
  return db('oauth_clients').where({ client_id: clientId }).whereNull('deleted_at').first('id', 'organization_id', 'user_id', 'secret_hash', 'scopes');
}
