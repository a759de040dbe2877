import type { NextFunction, Request, Response } from 'express';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Db } from '../db/knex';
import { libraryPool, type PoolLike } from '../db/prepared';
import { ApiError } from '../errors';
import { rateLimitRejections } from '../metrics';
import { CoalescedConsumer, type Counted } from './coalesced-consume';
import type { Caller } from './handler';

/**
 * Rate limits, per organization and per credential, counted in PostgreSQL by rate-limiter-flexible
 * (table `rate_limits`), so every instance of the service shares the same counters.
 *
 * Two windows each: a burst (requests per second) and an hourly quota. The organization's limits
 * are its own (`admin org setting --rate-limit-burst/--rate-limit-hourly`) or the defaults
 * (RATE_LIMIT_BURST, RATE_LIMIT_HOURLY); they are shared by all its credentials, and they are
 * what each credential may use: an organization given 100,000 requests a second lets a single
 * integration use them all. A credential given its own limits (`admin api-key rotate` /
 * `client create --rate-limit-burst/--rate-limit-hourly`) is held to them as well, counted for that
 * credential alone (windows `credential-burst`, `credential-hourly`): a request must fit both.
 * They come with the Caller (read with the credential, cached with it), never with a query here.
 *
 * Every authenticated answer carries `RateLimit-Policy` and `RateLimit` (IETF httpapi
 * ratelimit-headers draft, structured-field lists: `"name";q=<quota>;w=<window s>` and
 * `"name";r=<remaining>;t=<seconds to reset>`); a request over a limit is answered 429 with
 * `Retry-After` and a problem body, and does not reach the database otherwise.
 *
 * A refused request has no effect (api/guides.md, Rate limits): it counts against none of the
 * windows. Once this instance has seen a window used up, its requests are refused before any
 * window counts them; a request refused by one window while counted by the others (the first ones
 * past a limit, or a window filled by another instance) gives its position back to the others.
 * Every refusal counts once in `rate_limit_rejections_total{limit="<window>"}`.
 */
export interface Limits {
  burst: number;
  hourly: number;
}

export const TABLE = 'rate_limits';
const KEY_PREFIX = 'rl';
/** An organization's overrides are read again after this long (an admin change applies within it). */
const SETTINGS_TTL_MS = 10_000;
const SETTINGS_MAX = 10_000;

interface Window {
  name: string;
  scope: 'org' | 'credential';
  seconds: number;
  quota: number;
  id: string;
}

/** `"name";q=..;w=..` items, one per window. */
export function policyHeader(windows: { name: string; quota: number; seconds: number }[]): string {
  return windows.map((w) => `"${w.name}";q=${w.quota};w=${w.seconds}`).join(', ');
}

/** `"name";r=..;t=..` items, one per window. */
export function stateHeader(windows: { name: string; remaining: number; resetMs: number }[]): string {
  return windows.map((w) => `"${w.name}";r=${Math.max(0, w.remaining)};t=${Math.max(0, Math.ceil(w.resetMs / 1000))}`).join(', ');
}

export function tooManyRequests(retryAfterMs: number, message: string, headers: Record<string, string> = {}): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(429, 'too-many-requests', 'Too many requests', [{ message: `${message} Retry in ${seconds} s.` }], {
    ...headers,
    'Retry-After': String(seconds),
  });
}

/** One limiter per (quota, window): rate-limiter-flexible fixes both per instance; all share the table. */
export class LimiterSet {
  private readonly limiters = new Map<string, RateLimiterPostgres>();

  private readonly pool: PoolLike;

  constructor(db: Db) {
    this.pool = libraryPool(db);
  }

  private readonly consumers = new Map<string, CoalescedConsumer>();

  /** The window's limiter behind a CoalescedConsumer: concurrent requests of one key share a statement. */
  coalesced(points: number, duration: number): CoalescedConsumer {
    const id = `${points}/${duration}`;
    let consumer = this.consumers.get(id);
    if (!consumer) this.consumers.set(id, (consumer = new CoalescedConsumer(this.get(points, duration), points)));
    return consumer;
  }

  /**
   * `blockInMemory` (the default): once over the limit, further requests in the window are refused
   * without a database round trip. Off for a count whose positions are given back (the token
   * guard's), where a position over the limit is only provisional.
   */
  get(points: number, duration: number, blockInMemory = true): RateLimiterPostgres {
    const id = `${points}/${duration}${blockInMemory ? '' : '/unblocked'}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterPostgres({
        // Its statements run as ours do (src/db/prepared.ts, libraryPool).
        storeClient: this.pool,
        storeType: 'pool',
        tableName: TABLE,
        tableCreated: true,
        keyPrefix: KEY_PREFIX,
        points,
        duration,
        // Once over the limit, further requests in the window are refused without a database
        // round trip (a flood costs this process little).
        ...(blockInMemory ? { inMemoryBlockOnConsumed: points } : {}),
        // Expired counters are deleted by one limiter of the set, not by every one.
        clearExpiredByTimeout: this.limiters.size === 0,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

export interface RateLimitDeps {
  db: Db;
  defaults: Limits;
  /** The request's caller, resolved once per request (authentication). */
  caller(req: Request, res: Response): Promise<Caller | undefined>;
}

export function rateLimiter({ db, defaults, caller }: RateLimitDeps) {
  const limiters = new LimiterSet(db);
  const settings = new Map<string, { limits: Limits; until: number }>();

  async function orgLimits(orgId: string): Promise<Limits> {
    const now = Date.now();
    const cached = settings.get(orgId);
    if (cached && cached.until > now) return cached.limits;
    const row = await db('organizations').where({ id: orgId }).first('rate_limit_burst', 'rate_limit_hourly');
    const limits = { burst: row?.rate_limit_burst ?? defaults.burst, hourly: row?.rate_limit_hourly ?? defaults.hourly };
    if (settings.size >= SETTINGS_MAX) settings.clear();
    settings.set(orgId, { limits, until: now + SETTINGS_TTL_MS });
    return limits;
  }

  return async function rateLimit(req: Request, res: Response, next: NextFunction): Promise<void> {
    let who: Caller | undefined;
    try {
      who = await caller(req, res);
      if (!who) return next();
      const org = await orgLimits(who.organizationId);
      const windows: Window[] = [
        { name: 'org-burst', scope: 'org', seconds: 1, quota: org.burst, id: who.organizationId },
        { name: 'org-hourly', scope: 'org', seconds: 3600, quota: org.hourly, id: who.organizationId },
      ];
      // A credential's own limits: its own counters (an API key's id and a client id never collide).
      const credential = `${who.via}:${who.credentialId}`;
      if (who.limits?.burst) windows.push({ name: 'credential-burst', scope: 'credential', seconds: 1, quota: who.limits.burst, id: credential });
      if (who.limits?.hourly) windows.push({ name: 'credential-hourly', scope: 'credential', seconds: 3600, quota: who.limits.hourly, id: credential });
      const consumers = windows.map((w) => limiters.coalesced(w.quota, w.seconds));
      const keys = windows.map((w) => `${w.scope}:${w.id}:${w.seconds}`);
      const seen = consumers.map((c, i) => c.peek(keys[i]));
      let results: Counted[];
      if (seen.some((x) => x?.limited)) {
        // A window known to be used up: refused before anything is counted.
        results = seen.map((x, i) => x ?? { remainingPoints: windows[i].quota, msBeforeNext: 0, limited: false });
      } else {
        results = await Promise.all(consumers.map((c, i) => c.consume(keys[i])));
        if (results.some((x) => x.limited)) results = results.map((x, i) => consumers[i].giveBack(keys[i], x));
      }
      res.setHeader('RateLimit-Policy', policyHeader(windows));
      res.setHeader(
        'RateLimit',
        stateHeader(windows.map((w, i) => ({ name: w.name, remaining: results[i].remainingPoints, resetMs: results[i].msBeforeNext }))),
      );
      const limited = results.map((x, i) => ({ ...x, w: windows[i] })).filter((x) => x.limited);
      if (!limited.length) return next();
      const longest = limited.reduce((a, b) => (b.msBeforeNext > a.msBeforeNext ? b : a));
      rateLimitRejections.inc({ limit: longest.w.name });
      const wait = longest.msBeforeNext;
      const names = limited.map((x) => x.w.name).join(', ');
      next(tooManyRequests(wait, `Rate limit exceeded (${names}).`));
    } catch (err) {
      // The counters live in the database: when it fails, the request goes on and meets the same
      // failure (a 503) where it needs the database, rather than being refused for our bookkeeping.
      if (err instanceof ApiError) return next(err);
      next();
    }
  };
}
