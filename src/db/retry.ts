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
