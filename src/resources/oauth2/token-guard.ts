import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
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

/**
 * The client's address in one spelling: an IPv4 client reaches an instance listening on `::` as
 * `::ffff:a.b.c.d` and one listening on an IPv4 address as `a.b.c.d`; counted under two keys, the
 * same client's failures on one instance did not count on the other.
 */
function addressOf(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? '';
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}

const keyOf = (clientId: string, req: Request) => `token:${clientId}:${addressOf(req)}`;

function setHeaders(res: Response, remaining: number, resetMs: number): void {
  res.setHeader('RateLimit-Policy', policyHeader([{ name: POLICY, quota: FAILURES_PER_MINUTE, seconds: WINDOW_S }]));
  res.setHeader('RateLimit', stateHeader([{ name: POLICY, remaining, resetMs: remaining === FAILURES_PER_MINUTE ? 0 : resetMs }]));
}

/**
 * One key's attempts in this process: `holding`, the attempts whose position in the store's count
 * is being checked; `waiting`, the attempts waiting for one of them to finish; `writes`, the
 * key's last counting statement, and `queued`, the steps not yet done: this process sends one
 * key's counting statements one at a time.
 */
interface KeyState {
  holding: number;
  queued: number;
  waiting: (() => void)[];
  writes: Promise<unknown>;
}
const states = new Map<string, KeyState>();
/** A request's attempt, to settle once its check is known to have succeeded. */
const attempts = new WeakMap<Response, { state: KeyState; done: () => void }>();

function stateOf(key: string): KeyState {
  let state = states.get(key);
  if (!state) states.set(key, (state = { holding: 0, queued: 0, waiting: [], writes: Promise.resolve() }));
  return state;
}

/**
 * Runs one of the key's counting steps after the previous one: a refused position is given back
 * before the next attempt is counted, so no attempt is refused on a position that was not a
 * failure (parallel refusals and give-backs interleaving made a count of 11 out of 10 failures).
 */
function serially<T>(key: string, state: KeyState, step: () => Promise<T>): Promise<T> {
  state.queued++;
  const run = state.writes.then(step, step).finally(() => {
    state.queued--;
    forgetIdle(key, state);
  });
  state.writes = run.catch(() => undefined);
  return run;
}

function forgetIdle(key: string, state: KeyState): void {
  if (state.holding === 0 && state.queued === 0 && !state.waiting.length && states.get(key) === state) states.delete(key);
}

/** An attempt's check is over (its position given back, or kept as a failure): a waiting one may retry. */
function finish(key: string, state: KeyState): void {
  state.holding--;
  const waiting = state.waiting.splice(0);
  forgetIdle(key, state);
  for (const wake of waiting) wake();
}

/**
 * Before checking a secret: takes a position in the count (one atomic statement), so that at most
 * FAILURES_PER_MINUTE secrets are ever being checked or recorded as failed per key and minute: a
 * check of the failures recorded so far would let any number of parallel guesses through before
 * the first of them is recorded. A successful authentication gives its position back
 * (releaseTokenAttempt), so only failures stay counted.
 *
 * This process counts one key's attempts one statement at a time (serially): a refused attempt
 * gives its position back (it was not checked) before the next statement, so the count an attempt
 * sees is the recorded failures plus the positions being checked, never another attempt's refusal.
 * An attempt finding every position taken while attempts of its key are being checked here waits
 * for one of them to finish (a success frees a position) and tries again, so parallel logins with
 * the right secret (an ERP connector starting 50 workers at once, round after round) all get
 * tokens; once every position is a recorded failure, it is refused with 429.
 */
export async function reserveTokenAttempt(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const key = keyOf(clientId, req);
  const limiter = limiterFor(db);
  for (;;) {
    const state = stateOf(key);
    const counted = await serially(key, state, async () => {
      try {
        const position = await limiter.consume(key);
        state.holding++; // before the next step: a refusal after it waits for this check
        return position;
      } catch (refusal) {
        // The store failing locks nobody out (the guard is a throttle, not the authentication).
        if (!(refusal instanceof RateLimiterRes)) return undefined;
        await limiter.reward(key).catch(() => undefined);
        return { refusal };
      }
    });
    if (counted === undefined) return;
    if ('refusal' in counted) {
      if (state.holding > 0) {
        await new Promise<void>((wake) => state.waiting.push(wake));
        continue;
      }
      setHeaders(res, 0, counted.refusal.msBeforeNext);
      rateLimitRejections.inc({ limit: POLICY });
      throw tooManyRequests(counted.refusal.msBeforeNext, `Too many failed client authentications for ${clientId} from your address.`);
    }
    // Settled when the answer is finished or abandoned, whichever way the check ends.
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      finish(key, state);
    };
    res.once('finish', done);
    res.once('close', done);
    setHeaders(res, counted.remainingPoints, counted.msBeforeNext);
    attempts.set(res, { state, done });
    return;
  }
}

/** After a successful client authentication: the attempt is not a failure, its position is free again. */
export async function releaseTokenAttempt(db: Db, req: Request, res: Response, clientId: string): Promise<void> {
  const key = keyOf(clientId, req);
  const attempt = attempts.get(res);
  const reward = () =>
    limiterFor(db)
      .reward(key)
      .catch(() => null);
  const result = await (attempt ? serially(key, attempt.state, reward) : reward());
  attempt?.done();
  if (result) setHeaders(res, Math.min(FAILURES_PER_MINUTE, FAILURES_PER_MINUTE - result.consumedPoints), result.msBeforeNext);
}
