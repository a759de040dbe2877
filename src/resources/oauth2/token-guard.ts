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
  // No in-memory block: a position over the limit may be given back (a check in flight succeeded).
  return set.get(FAILURES_PER_MINUTE, WINDOW_S, false);
}

const keyOf = (clientId: string, req: Request) => `token:${clientId}:${req.ip ?? req.socket.remoteAddress ?? ''}`;

function setHeaders(res: Response, remaining: number, resetMs: number): void {
  res.setHeader('RateLimit-Policy', policyHeader([{ name: POLICY, quota: FAILURES_PER_MINUTE, seconds: WINDOW_S }]));
  res.setHeader('RateLimit', stateHeader([{ name: POLICY, remaining, resetMs: remaining === FAILURES_PER_MINUTE ? 0 : resetMs }]));
}

/**
 * Attempts of one key this process is checking right now, and the attempts waiting for one of
 * them to finish: a check that succeeds gives its position back, which a waiting attempt may take.
 */
interface InFlight {
  checking: number;
  waiting: (() => void)[];
}
const inFlight = new Map<string, InFlight>();
/** A request's attempt, to settle once its check is known to have succeeded. */
const attempts = new WeakMap<Response, () => void>();

function settle(key: string): void {
  const state = inFlight.get(key);
  if (!state) return;
  state.checking--;
  const waiting = state.waiting.splice(0);
  if (state.checking === 0 && !waiting.length) inFlight.delete(key);
  for (const wake of waiting) wake();
}

/**
 * Before checking a secret: takes a position in the count (one atomic statement), so that at most
 * FAILURES_PER_MINUTE secrets are ever being checked or recorded as failed per key and minute: a
 * check of the failures recorded so far would let any number of parallel guesses through before
 * the first of them is recorded. A successful authentication gives its position back
 * (releaseTokenAttempt), so only failures stay counted.
 *
 * An attempt finding every position taken while attempts of its key are still being checked in
 * this process waits for one of them to finish (a success frees a position) and tries again, so
 * parallel logins with the right secret (an ERP connector starting 50 workers at once) all get
 * tokens; once every position is a recorded failure, it is refused with 429. A refused attempt
 * gives its position back: it was not checked.
 */
export async function reserveTokenAttempt(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const key = keyOf(clientId, req);
  const limiter = limiterFor(db);
  for (;;) {
    let counted: RateLimiterRes;
    try {
      counted = await limiter.consume(key);
    } catch (refusal) {
      // The store failing locks nobody out (the guard is a throttle, not the authentication).
      if (!(refusal instanceof RateLimiterRes)) return;
      await limiter.reward(key).catch(() => undefined);
      const state = inFlight.get(key);
      if (state && state.checking > 0) {
        await new Promise<void>((wake) => state.waiting.push(wake));
        continue;
      }
      setHeaders(res, 0, refusal.msBeforeNext);
      rateLimitRejections.inc({ limit: POLICY });
      throw tooManyRequests(refusal.msBeforeNext, `Too many failed client authentications for ${clientId} from your address.`);
    }
    let state = inFlight.get(key);
    if (!state) inFlight.set(key, (state = { checking: 0, waiting: [] }));
    state.checking++;
    // Settled when the answer is finished or abandoned, whichever way the check ends.
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      settle(key);
    };
    res.once('finish', done);
    res.once('close', done);
    setHeaders(res, counted.remainingPoints, counted.msBeforeNext);
    attempts.set(res, done);
    return;
  }
}

/** After a successful client authentication: the attempt is not a failure, its position is free again. */
export async function releaseTokenAttempt(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const result = await limiterFor(db)
    .reward(keyOf(clientId, req))
    .catch(() => null);
  attempts.get(res)?.();
  if (result) setHeaders(res, Math.min(FAILURES_PER_MINUTE, FAILURES_PER_MINUTE - result.consumedPoints), result.msBeforeNext);
}
