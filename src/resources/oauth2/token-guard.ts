import type { Request, Response } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../../db/knex';
import { rateLimitRejections } from '../../metrics';
import { LimiterSet, policyHeader, stateHeader, tooManyRequests } from '../../http/rate-limit';

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

/**
 * Before checking a secret: counts the attempt, and throws 429 once FAILURES_PER_MINUTE are used.
 * Counted before the check, in one atomic statement: a check of the failures recorded so far would
 * let any number of parallel guesses through before the first of them is recorded. A successful
 * authentication gives its attempt back (releaseTokenAttempt), so only failures stay counted (more
 * than 10 successful requests of one client at the same instant from one address would see a 429).
 */
export async function reserveTokenAttempt(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  let counted: RateLimiterRes;
  try {
    counted = await limiterFor(db).consume(keyOf(clientId, req));
  } catch (refusal) {
    // The store failing locks nobody out (the guard is a throttle, not the authentication).
    if (!(refusal instanceof RateLimiterRes)) return;
    setHeaders(res, 0, refusal.msBeforeNext);
    rateLimitRejections.inc({ limit: POLICY });
    throw tooManyRequests(refusal.msBeforeNext, `Too many failed client authentications for ${clientId} from your address.`);
  }
  setHeaders(res, counted.remainingPoints, counted.msBeforeNext);
}

/** After a successful client authentication: the attempt is not a failure. */
export async function releaseTokenAttempt(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const result = await limiterFor(db)
    .reward(keyOf(clientId, req))
    .catch(() => null);
  if (result) setHeaders(res, Math.min(FAILURES_PER_MINUTE, FAILURES_PER_MINUTE - result.consumedPoints), result.msBeforeNext);
}
