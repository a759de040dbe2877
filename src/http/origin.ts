import type { Request } from 'express';
import type { Caller } from '../auth/caller';
import type { Origin } from '../feed/origin';
import { idempotencyKeyOf } from './idempotency';
import { contextOf } from './context';

/** The origin of a request's changes: its credential, its X-Request-Id and its Idempotency-Key. */
export const originOf = (caller: Caller, req: Request): Origin => ({
  credentialType: caller.via === 'oauth' ? 'oauth_client' : 'api_key',
  credentialId: caller.credentialId,
  requestId: contextOf(req).requestId ?? null,
  idempotencyKey: idempotencyKeyOf(req) ?? null,
});

/** `self` in an excludeOrigins list is the caller's own credential. */
export const resolveSelf = (caller: Caller, ids: readonly string[]): string[] => [...new Set(ids.map((id) => (id === 'self' ? caller.credentialId : id)))];
