import { RateLimiterRes } from 'rate-limiter-flexible';

/** The part of rate-limiter-flexible's limiter this uses: `consume(key, points)` and `reward(key, points)`. */
export interface Consumer {
  consume(key: string, points: number): Promise<RateLimiterRes>;
  reward(key: string, points: number): Promise<RateLimiterRes>;
}

/** One request's count in a window: what is left after it, when the window resets, whether it is over. */
export interface Counted {
  remainingPoints: number;
  msBeforeNext: number;
  limited: boolean;
}

interface Waiter {
  resolve(counted: Counted): void;
  reject(err: unknown): void;
}

/** An instance's positions in a window, counted in PostgreSQL and not yet handed to a request. */
interface Lease {
  /** The next position to hand out, and the last one leased (never past the quota). */
  next: number;
  last: number;
  /** When the window resets (Date.now() scale): the lease ends with it. */
  until: number;
}

/** What one key's traffic looked like at its last statement, to size the next lease. */
interface Pace {
  at: number;
  /** Requests counted for the key since that statement (from the lease or in a batch). */
  served: number;
}

/** A lease covers about this much of an instance's own recent traffic of a key. */
export const LEASE_HORIZON_MS = 50;
/** ...and never more than this share of the window's quota (1/20: 5 %). */
export const LEASE_MAX_SHARE = 20;
/** Keys tracked at most (leases and pace); past it the bookkeeping starts afresh. */
const MAX_KEYS = 10_000;
/**
 * A position is given back only while its window has at least this long to run: a reward that
 * reached the store after the window reset would count as a negative point in the next window.
 */
export const GIVE_BACK_MARGIN_MS = 100;

/** The highest position this instance handed out (or saw refused) in a key's current window. */
interface Known {
  used: number;
  until: number;
}

/**
 * Counts a key's requests against one window in PostgreSQL (rate-limiter-flexible's
 * `consume(key, points)`), with as few statements as the counting allows:
 *
 * - Concurrent requests share a statement: while a consume of a key is in flight, the requests
 *   that arrive for it wait and are then counted together as one consume of N points.
 * - A key with steady traffic on this instance takes a lease: a statement counts, besides the
 *   requests waiting, the positions this instance's traffic of the last LEASE_HORIZON_MS is likely
 *   to need next (at most 1/LEASE_MAX_SHARE of the quota, never past it), and the requests that
 *   follow take those positions without a statement until they are used or the window resets.
 *
 * Every request gets its own position in the window, in order, and is refused exactly when that
 * position is past the quota, as if counted alone: the RateLimit header's remainder is the quota
 * less that position. The counters stay in PostgreSQL, shared by every instance; what a lease
 * changes is that the count there runs ahead of the requests served by at most the positions
 * leased and not yet used, a few milliseconds of one instance's traffic, never more than 1/20 of
 * the quota per instance, and nothing at all for a key with one request at a time (its lease stays
 * empty: every request is a statement, as without leases). Positions still leased when a window
 * resets count against that window only, as the requests refused in it do.
 */
export class CoalescedConsumer {
  private readonly queues = new Map<string, Waiter[]>();

  private readonly leases = new Map<string, Lease>();

  private readonly pace = new Map<string, Pace>();

  private readonly known = new Map<string, Known>();

  /** Positions given back and not yet rewarded in the store, per key (one reward per key per tick). */
  private readonly givingBack = new Map<string, { n: number; until: number }>();

  private readonly maxLease: number;

  constructor(
    private readonly limiter: Consumer,
    private readonly quota: number,
    private readonly now: () => number = Date.now,
  ) {
    this.maxLease = Math.max(1, Math.floor(quota / LEASE_MAX_SHARE));
  }

  consume(key: string): Promise<Counted> {
    const leased = this.fromLease(key);
    if (leased) return Promise.resolve(leased);
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) return void queue.push({ resolve, reject }); // counted by the next statement
      this.queues.set(key, []);
      this.run(key, [{ resolve, reject }]);
    });
  }

  /**
   * The key's window as this instance last saw it, without counting anything: the remainder after
   * the last position it handed out, and `limited` when the window is used up (a request now would
   * be refused). Undefined when this instance has not counted the key in its current window.
   */
  peek(key: string): Counted | undefined {
    const known = this.known.get(key);
    const now = this.now();
    if (!known || known.until <= now) return undefined;
    return { remainingPoints: Math.max(0, this.quota - known.used), msBeforeNext: known.until - now, limited: known.used >= this.quota };
  }

  /**
   * Gives back the position `counted` took: its request was refused by another window, and a
   * refused request has no effect. A position of a key holding a lease returns to the lease (no
   * statement: the store already counts it); otherwise the store is rewarded, one statement per key
   * for all the positions given back in the same tick. Answers the window's state without the
   * request (its remainder one more). Nothing is given back once the window has (almost) reset.
   *
   * rate-limiter-flexible blocks a key in memory when its count reaches the quota
   * (inMemoryBlockOnConsumed): a position given back after that (the very last one, taken by a
   * request another window refused at the same moment) stays unused by this instance until the
   * window resets.
   */
  giveBack(key: string, counted: Counted): Counted {
    const now = this.now();
    const until = now + counted.msBeforeNext;
    if (counted.limited || counted.msBeforeNext < GIVE_BACK_MARGIN_MS) return counted;
    const known = this.known.get(key);
    if (known && known.until > now) known.used = Math.max(0, known.used - 1);
    const lease = this.leases.get(key);
    if (lease && lease.until > now) {
      // The positions after the one given back move down by one: the lease hands out one more.
      lease.next--;
    } else {
      const pending = this.givingBack.get(key);
      if (pending) {
        pending.n++;
        pending.until = Math.min(pending.until, until);
      } else {
        this.givingBack.set(key, { n: 1, until });
        // After the current tick: the requests of one batch are decided together.
        setImmediate(() => this.reward(key));
      }
    }
    return { ...counted, remainingPoints: Math.min(this.quota, counted.remainingPoints + 1) };
  }

  private reward(key: string): void {
    const pending = this.givingBack.get(key)!;
    this.givingBack.delete(key);
    if (pending.until - this.now() < GIVE_BACK_MARGIN_MS) return;
    // A failure leaves the count one higher than the requests served, as a refused request used to.
    this.limiter.reward(key, pending.n).catch(() => undefined);
  }

  /** Records the position `used` handed out (or refused) in the key's window ending at `until`. */
  private note(key: string, used: number, until: number): void {
    const known = this.known.get(key);
    const position = Math.min(used, this.quota);
    if (known && known.until > this.now()) {
      known.used = Math.max(known.used, position);
      known.until = until;
    } else this.known.set(key, { used: position, until });
  }

  /** The key's next leased position, if it holds one still valid. */
  private fromLease(key: string): Counted | undefined {
    const lease = this.leases.get(key);
    if (!lease) return undefined;
    const now = this.now();
    if (lease.until > now && lease.next <= lease.last) {
      const position = lease.next++;
      this.served(key);
      this.note(key, position, lease.until);
      return { remainingPoints: this.quota - position, msBeforeNext: lease.until - now, limited: false };
    }
    this.leases.delete(key);
    return undefined;
  }

  private served(key: string, n = 1): void {
    const pace = this.pace.get(key);
    if (pace) pace.served += n;
  }

  /** Positions to count with a batch of n: n, plus a lease sized on the key's recent pace. */
  private points(key: string, n: number, now: number): number {
    const pace = this.pace.get(key);
    if (this.pace.size >= MAX_KEYS && !pace) {
      this.pace.clear();
      this.leases.clear();
      this.known.clear();
    }
    this.pace.set(key, { at: now, served: 0 });
    if (!pace || this.maxLease <= 1) return n;
    const elapsed = Math.max(1, now - pace.at);
    const expected = Math.ceil(((pace.served + n) * LEASE_HORIZON_MS) / elapsed);
    return Math.max(n, Math.min(this.maxLease, expected));
  }

  private run(key: string, batch: Waiter[]): void {
    const n = batch.length;
    const startedAt = this.now();
    const points = this.points(key, n, startedAt);
    this.served(key, n);
    const settle = (res: RateLimiterRes) => {
      // A key rate-limiter-flexible blocks in memory is refused without a count (consumedPoints 0).
      const before = res.consumedPoints > 0 ? res.consumedPoints - points : this.quota;
      this.note(key, before + n, this.now() + res.msBeforeNext);
      batch.forEach((w, i) => {
        const used = before + i + 1;
        w.resolve({ remainingPoints: Math.max(0, this.quota - used), msBeforeNext: res.msBeforeNext, limited: used > this.quota });
      });
      const last = Math.min(before + points, this.quota);
      if (before + n < last) this.leases.set(key, { next: before + n + 1, last, until: startedAt + res.msBeforeNext });
    };
    this.limiter
      .consume(key, points)
      .then(settle, (err: unknown) => (err instanceof RateLimiterRes ? settle(err) : batch.forEach((w) => w.reject(err))))
      .finally(() => {
        // The requests that waited take the positions just leased first; the rest are counted next.
        const rest = this.queues.get(key)!.filter((w) => {
          const leased = this.fromLease(key);
          if (leased) w.resolve(leased);
          return !leased;
        });
        if (rest.length) {
          this.queues.set(key, []);
          this.run(key, rest);
        } else this.queues.delete(key);
      });
  }
}
