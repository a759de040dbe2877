/**
 * Webhook settings, read from the environment (documented in README's configuration table).
 * Durations are in milliseconds internally; tests pass small values directly.
 */
export interface WebhookSettings {
  /** Hosts that may be reached over plain http and on private addresses (lower case). */
  allowedHosts: string[];
  /** One attempt's limit, connection to end of the answer. */
  timeoutMs: number;
  /** First retry delay; doubled per attempt, with jitter (half fixed, half random). */
  retryBaseMs: number;
  /** Longest delay between two attempts (also caps a Retry-After). */
  retryMaxMs: number;
  /** How long an entry is retried before the endpoint is marked failing and disabled. */
  giveUpAfterMs: number;
  /** How long the previous secret keeps signing after rotate-secret. */
  secretOverlapMs: number;
  /** Endpoints delivered to at the same time by one process. */
  concurrency: number;
  /** Attempt log rows older than this are removed. */
  deliveryRetentionMs: number;
}

const HOUR = 3_600_000;

function number(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, not "${raw}"`);
  return n;
}

export function parseAllowedHosts(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((h) =>
      h
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter(Boolean);
}

export function webhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return {
    allowedHosts: parseAllowedHosts(env.WEBHOOK_ALLOWED_HOSTS),
    timeoutMs: number(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
    retryBaseMs: number(env, 'WEBHOOK_RETRY_BASE_MS', 5_000),
    retryMaxMs: number(env, 'WEBHOOK_RETRY_MAX_MS', HOUR),
    giveUpAfterMs: number(env, 'WEBHOOK_RETRY_HOURS', 24) * HOUR,
    secretOverlapMs: number(env, 'WEBHOOK_SECRET_OVERLAP_HOURS', 24) * HOUR,
    concurrency: Math.max(1, Math.floor(number(env, 'WEBHOOK_CONCURRENCY', 4))),
    deliveryRetentionMs: number(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30) * 24 * HOUR,
  };
}
