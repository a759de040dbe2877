import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { RateLimiterRes, type RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Db } from '../../db/knex';
import { unavailable } from '../../errors';
import { rateLimitRejections } from '../../metrics';
import { GIVE_BACK_MARGIN_MS } from '../../http/coalesced-consume';
import { LimiterSet, policyHeader, stateHeader, tooManyRequests } from '../../http/rate-limit';

/**
 * The token endpoint's guard against guessing client secrets: at most FAILURES_PER_MINUTE failed
 * client authentications per minute for one client id from one address, then 429 until the
 * minute is over. Counted per (client id, address), in PostgreSQL (shared by every instance), so
 * an attacker elsewhere cannot lock the client out from its own address.
 *
 * Two counts per key, in the rate limits' store:
 * - positions (`token:...`): the failures of the minute plus the checks in flight, on every
 *   instance. A secret is checked only once it holds a position (one atomic statement), so parallel
 *   guesses cannot exceed the limit before the first of them is recorded; a successful check gives
 *   its position back, a failed one keeps it.
 * - failures (`token-failed:...`): the failures alone, never given back. Its window is made to end
 *   no later than the positions' window it was opened in, so it never holds failures of an earlier
 *   window of positions.
 * A refused position means either that the minute's failures are used up (the failures say so:
 * 429) or that checks somewhere, on any instance, hold the rest: the attempt waits for them (20 ms
 * doubling to 200 ms, woken at once when a check of this process ends) and tries again, for
 * PATIENCE_MS at most, then answers 503 with `Retry-After`. A correct client is never told it
 * failed: a 429 comes only from recorded failures.
 */
export const FAILURES_PER_MINUTE = 10;
const WINDOW_S = 60;
const POLICY = 'token-failures';
const FIRST_PAUSE_MS = 20;
const LONGEST_PAUSE_MS = 200;
/** How long an attempt waits for positions held by checks in flight before answering 503. */
export const PATIENCE_MS = 5_000;

const sets = new WeakMap<Db, LimiterSet>();

function limiterFor(db: Db): RateLimiterPostgres {
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

interface Keys {
  positions: string;
  failures: string;
}

function keysOf(clientId: string, req: Request): Keys {
  const who = `${clientId}:${addressOf(req)}`;
  return { positions: `token:${who}`, failures: `token-failed:${who}` };
}

function setHeaders(res: Response, remaining: number, resetMs: number): void {
  res.setHeader('RateLimit-Policy', policyHeader([{ name: POLICY, quota: FAILURES_PER_MINUTE, seconds: WINDOW_S }]));
  res.setHeader('RateLimit', stateHeader([{ name: POLICY, remaining, resetMs: remaining === FAILURES_PER_MINUTE ? 0 : resetMs }]));
}

/** This process's attempts of a key waiting for a position, oldest first. */
const waiting = new Map<string, (() => void)[]>();

/** Waits `ms`, or less when a check of this process frees a position of the key. */
function pause(key: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let queue = waiting.get(key);
    if (!queue) waiting.set(key, (queue = []));
    const wake = () => {
      clearTimeout(timer);
      const at = queue.indexOf(wake);
      if (at >= 0) queue.splice(at, 1);
      if (!queue.length && waiting.get(key) === queue) waiting.delete(key);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    queue.push(wake);
  });
}

/** A position of the key was freed here: the attempt waiting longest tries again at once. */
function wakeOne(key: string): void {
  waiting.get(key)?.[0]?.();
}

/** A position in the count, and when the window it was counted in ends (Date.now() scale). */
interface Position {
  remaining: number;
  msBeforeNext: number;
  until: number;
}

/**
 * Gives a position back, unless its window is ending: a give-back reaching the store after the
 * window reset would count as a negative position in the next one (one more guess).
 */
async function giveBack(limiter: RateLimiterPostgres, key: string, until: number): Promise<RateLimiterRes | null> {
  if (until - Date.now() < GIVE_BACK_MARGIN_MS) return null;
  return limiter.reward(key).catch(() => null);
}

/**
 * A position for one check, or undefined when the store fails (the guard is a throttle, not the
 * authentication: it locks nobody out). Throws 429 once the minute's failures are used up, 503
 * when checks in flight held every position for PATIENCE_MS.
 */
async function takePosition(limiter: RateLimiterPostgres, keys: Keys, clientId: string, res: Response): Promise<Position | undefined> {
  const started = Date.now();
  for (let pauseMs = FIRST_PAUSE_MS; ; pauseMs = Math.min(2 * pauseMs, LONGEST_PAUSE_MS)) {
    let refusal: RateLimiterRes;
    try {
      const taken = await limiter.consume(keys.positions);
      return { remaining: taken.remainingPoints, msBeforeNext: taken.msBeforeNext, until: Date.now() + taken.msBeforeNext };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return undefined;
      refusal = err;
    }
    // The refused attempt was counted too: it gives its position back (it checks nothing).
    const [, failed] = await Promise.all([giveBack(limiter, keys.positions, Date.now() + refusal.msBeforeNext), limiter.get(keys.failures).catch(() => null)]);
    if (failed && failed.consumedPoints >= FAILURES_PER_MINUTE) {
      setHeaders(res, 0, failed.msBeforeNext);
      rateLimitRejections.inc({ limit: POLICY });
      throw tooManyRequests(failed.msBeforeNext, `Too many failed client authentications for ${clientId} from your address.`);
    }
    if (Date.now() - started + pauseMs > PATIENCE_MS) {
      throw unavailable(`Other authentications of ${clientId} from your address are being checked; retry in a moment.`);
    }
    await pause(keys.positions, pauseMs);
  }
}

/**
 * Records a failed check in the failures' count, in a window ending with the position's (whole
 * seconds, rounded down). A position whose window ends within a second is not recorded: the
 * positions' count starts over before the failures' could.
 */
async function recordFailure(limiter: RateLimiterPostgres, keys: Keys, position: Position): Promise<void> {
  const seconds = Math.floor((position.until - Date.now()) / 1000);
  if (seconds < 1) return;
  await limiter.consume(keys.failures, 1, { customDuration: seconds }).catch(() => undefined);
}

/**
 * Runs `check` (a client authentication: the client when its secret is right, else undefined)
 * under the guard: after taking a position (or refused, see takePosition). A failed check keeps
 * its position and is recorded as a failure; a successful one gives it back, as does a check that
 * throws (no secret was judged).
 */
export async function withTokenGuard<T>(db: Db, req: Request, res: Response, clientId: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const keys = keysOf(clientId, req);
  const limiter = limiterFor(db);
  const position = await takePosition(limiter, keys, clientId, res);
  if (!position) return check();
  setHeaders(res, position.remaining, position.msBeforeNext);
  let outcome: T | undefined;
  try {
    outcome = await check();
  } catch (err) {
    await giveBack(limiter, keys.positions, position.until);
    wakeOne(keys.positions);
    throw err;
  }
  if (outcome === undefined) {
    await recordFailure(limiter, keys, position);
    return undefined;
  }
  const after = await giveBack(limiter, keys.positions, position.until);
  wakeOne(keys.positions);
  if (after) setHeaders(res, Math.min(FAILURES_PER_MINUTE, FAILURES_PER_MINUTE - after.consumedPoints), after.msBeforeNext);
  return outcome;
}
