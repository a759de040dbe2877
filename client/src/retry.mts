/**
 * The kit's retry policy: network errors, 429 and 503 (after their `Retry-After`, bounded, with
 * jitter) and other 5xx (exponential backoff with jitter). Never another status: a 4xx is the
 * caller's to handle. Whether a request may be retried at all is the caller's decision
 * (`retryable`: reads, and writes that carry an Idempotency-Key).
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1: no retry). */
  maxAttempts?: number;
  /** First backoff after a network error or a 5xx (default 200 ms; doubled per attempt). */
  baseDelayMs?: number;
  /** The longest backoff (default 10 s). */
  maxDelayMs?: number;
  /** The longest `Retry-After` waited out (default 60 s): a longer one is answered to the caller at once. */
  maxRetryAfterMs?: number;
}

const DEFAULTS: Required<RetryOptions> = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

/** Sends `attempt()` until it answers something final, within the policy. */
export async function sendWithRetries(
  attempt: () => Promise<Response>,
  retryable: boolean,
  options?: RetryOptions,
  signal?: AbortSignal | null,
): Promise<Response> {
  const policy = { ...DEFAULTS, ...options };
  for (let n = 1; ; n++) {
    const last = !retryable || n >= policy.maxAttempts;
    let response: Response;
    try {
      response = await attempt();
    } catch (err) {
      if (last || signal?.aborted) throw err;
      await sleep(backoff(n, policy), signal);
      continue;
    }
    if (last) return response;
    let wait: number;
    if (response.status === 429 || response.status === 503) {
      const after = retryAfterMs(response.headers.get('retry-after'));
      if (after !== undefined && after > policy.maxRetryAfterMs) return response;
      // Retry-After is a minimum: add up to 10 % (at most 1 s) so that callers told the same time spread out.
      wait = after === undefined ? backoff(n, policy) : after + Math.random() * Math.min(1000, after / 10);
    } else if (response.status >= 500) {
      wait = backoff(n, policy);
    } else {
      return response;
    }
    await response.body?.cancel().catch(() => undefined);
    await sleep(wait, signal);
  }
}

/** `Retry-After` in milliseconds from now: delta-seconds or an HTTP date (RFC 9110); undefined when absent or malformed. */
export function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date starts with the day's name (every form RFC 9110 allows); Date.parse alone takes "-1" for a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Full backoff of attempt n, half of it random ("equal jitter"). */
function backoff(n: number, policy: Required<RetryOptions>): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
  return full / 2 + (Math.random() * full) / 2;
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}
