import type { Request, Response } from 'express';
import type { Db } from '../db/knex';
import { rateLimitRejections } from '../metrics';
import { LimiterSet, policyHeader, stateHeader, tooManyRequests } from './rate-limit';

/**
 * The token endpoint's guard against guessing client secrets: at most FAILURES_PER_MINUTE failed
 * client authentications per minute for one client id from one address, then 429 until the
 * minute is over. Counted per (client id, address), in PostgreSQL (shared by every instance), so
 * an attacker elsewhere cannot lock the client out from its own address.
 */
export const FAILURES_PER_MINUTE = 10;
const WINDOW_S = 60;
const POLICY = 'token-failures';

const sets = new WeakMap<Db, LimiterSet>();

function limiterFor(db: Db) {
  let set = sets.get(db);
  if (!set) sets.set(db, (set = new LimiterSet(db)));
  return set.get(FAILURES_PER_MINUTE, WINDOW_S);
}

const keyOf = (clientId: string, req: Request) => `token:${clientId}:${req.ip ?? req.socket.remoteAddress ?? ''}`;

function setHeaders(res: Response, remaining: number, resetMs: number): void {
  res.setHeader('RateLimit-Policy', policyHeader([{ name: POLICY, quota: FAILURES_PER_MINUTE, seconds: WINDOW_S }]));
  res.setHeader('RateLimit', stateHeader([{ name: POLICY, remaining, resetMs: remaining === FAILURES_PER_MINUTE ? 0 : resetMs }]));
}

/** Before checking a secret: throws 429 when this client id has failed too often from this address. */
export async function checkTokenFailures(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const state = await limiterFor(db)
    .get(keyOf(clientId, req))
    .catch(() => null);
  const used = state?.consumedPoints ?? 0;
  const resetMs = state?.msBeforeNext ?? 0;
  setHeaders(res, FAILURES_PER_MINUTE - used, resetMs);
  if (used >= FAILURES_PER_MINUTE) {
    rateLimitRejections.inc({ limit: POLICY });
    throw tooManyRequests(resetMs, `Too many failed client authentications for ${clientId} from your address.`);
  }
}

/** After a failed client authentication: counts it. */
export async function recordTokenFailure(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const result = await limiterFor(db)
    .penalty(keyOf(clientId, req))
    .catch(() => null);
  if (result) setHeaders(res, FAILURES_PER_MINUTE - result.consumedPoints, result.msBeforeNext);
}
