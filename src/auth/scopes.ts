import { ApiError } from '../errors';
import type { Caller } from './caller';

/**
 * Least privilege. A credential (OAuth client, its tokens, or an API key) carries scopes: `read`
 * for GET operations, `write` for every other method. Each operation's scope is written in the
 * contract as its `oauth2` security requirement (added at bundle time by
 * redocly/procurement-plugin.cjs); an API key is held to the same requirement, since OpenAPI 3
 * gives bearer schemes no scopes. A caller without scopes (a token issued before scopes existed)
 * has full access.
 */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** `read`, `read,write` or `read write` (as typed on the CLI or sent per RFC 6749 3.3). */
export function parseScopes(text: string): Scope[] {
  const given = text.split(/[\s,]+/).filter(Boolean);
  const unknown = given.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length || !given.length) throw new Error(`scopes must be among ${SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  return SCOPES.filter((s) => given.includes(s));
}

/** RFC 6749 section 3.3: space-delimited. */
export const formatScope = (scopes: readonly string[]) => scopes.join(' ');

/**
 * A token's scope (RFC 6749 3.3): the requested scopes when all are the client's, else undefined
 * (invalid_scope); the client's own when none are requested.
 */
export function grantedScopes(clientScopes: readonly string[], requested: string | undefined): string | undefined {
  if (requested === undefined || requested.trim() === '') return formatScope(clientScopes);
  const wanted = requested.split(' ').filter(Boolean);
  if (!wanted.every((s) => clientScopes.includes(s))) return undefined;
  return formatScope(SCOPES.filter((s) => wanted.includes(s)));
}

export interface SecuredOperation {
  security?: Record<string, string[]>[];
}

/** The scopes the operation's `oauth2` requirement names (none for operations without one). */
export function requiredScopes(operation: SecuredOperation): string[] {
  return (operation.security ?? []).flatMap((req) => req.oauth2 ?? []);
}

export function insufficientScope(missing: string[]): ApiError {
  const message = `This credential may not do this: the operation needs the \`${missing.join(' ')}\` scope.`;
  return new ApiError(403, 'insufficient-scope', 'Forbidden', [{ message }], {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${formatScope(missing)}"`,
  });
}

/** Throws 403 insufficient_scope when the caller lacks a scope the operation requires. */
export function assertScopes(caller: Caller | undefined, operation: SecuredOperation): void {
  if (!caller?.scopes || caller.scopes.includes('*')) return;
  const missing = requiredScopes(operation).filter((s) => !caller.scopes!.includes(s));
  if (missing.length) throw insufficientScope(missing);
}
