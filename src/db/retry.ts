/**
 * Re-runs a whole transaction that PostgreSQL aborted to resolve a conflict with a concurrent one:
 * a deadlock (40P01) or a serialization failure (40001). Only the whole transaction can be retried
 * (its earlier statements were rolled back with it). The wait between attempts is short and
 * jittered, so the transactions that collided do not collide again in step; after the last
 * attempt the error goes on (and becomes a 503 with Retry-After).
 */
export const CONFLICT_CODES = new Set(['40P01', '40001']);

export interface RetryOptions {
  attempts?: number;
  /** Base wait in ms; attempt n waits a random time up to base * 2^n. */
  baseDelayMs?: number;
}

export function isConflict(err: unknown): boolean {
  return CONFLICT_CODES.has(String((err as { code?: unknown } | null)?.code ?? ''));
}

export async function retryOnConflict<T>(work: () => Promise<T>, { attempts = 5, baseDelayMs = 15 }: RetryOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isConflict(err)) throw err;
      const wait = baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * A statement the pool may hand a dead connection (after connections were cut): tried again, on a
 * fresh connection each time, four times in all (within about a second) before it fails. Only for
 * statements that may safely run twice (conditional on what they change).
 */
export async function onFreshConnections<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= 4) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * 4 ** (attempt - 1)));
    }
  }
}
