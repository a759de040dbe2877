import { RateLimiterRes } from 'rate-limiter-flexible';

/** The part of rate-limiter-flexible's limiter this uses: `consume(key, points)`. */
export interface Consumer {
  consume(key: string, points: number): Promise<RateLimiterRes>;
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

/**
 * Concurrent requests counting the same window share one statement. While a consume of a key is in
 * flight, the requests that arrive for that key wait for it and are then counted together, as one
 * consume of N points (rate-limiter-flexible's own `consume(key, points)`): the count in PostgreSQL
 * is exactly what N single consumes leave, and each request learns its own place in the batch, so
 * request i of N is refused exactly when the window holds more than `quota` once it is counted, as
 * it would have been counted alone. Without concurrency each request is one consume, as before;
 * under a burst of one organization's requests, a statement counts many (every request of an
 * organization counting the same PostgreSQL row one statement at a time was what made rate limits
 * cost most of a cheap read).
 *
 * Nothing is kept between batches: the counters stay in PostgreSQL, shared by every instance.
 */
export class CoalescedConsumer {
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    private readonly limiter: Consumer,
    private readonly quota: number,
  ) {}

  consume(key: string): Promise<Counted> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) return void queue.push({ resolve, reject }); // counted by the next statement
      this.queues.set(key, []);
      this.run(key, [{ resolve, reject }]);
    });
  }

  private run(key: string, batch: Waiter[]): void {
    const n = batch.length;
    const settle = (res: RateLimiterRes) => {
      // A key rate-limiter-flexible blocks in memory is refused without a count (consumedPoints 0).
      const before = res.consumedPoints > 0 ? res.consumedPoints - n : this.quota;
      batch.forEach((w, i) => {
        const used = before + i + 1;
        w.resolve({ remainingPoints: Math.max(0, this.quota - used), msBeforeNext: res.msBeforeNext, limited: used > this.quota });
      });
    };
    this.limiter
      .consume(key, n)
      .then(settle, (err: unknown) => (err instanceof RateLimiterRes ? settle(err) : batch.forEach((w) => w.reject(err))))
      .finally(() => {
        const next = this.queues.get(key)!;
        if (next.length) {
          this.queues.set(key, []);
          this.run(key, next);
        } else this.queues.delete(key);
      });
  }
}
