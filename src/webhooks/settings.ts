import type { Config } from '../config';
import type { Queryable } from '../db/knex';
import { hostsAllowedFor } from './ssrf';

/** The hosts the organization's endpoints may use: WEBHOOK_ALLOWED_HOSTS, and this machine for a development organization. */
export async function allowedHostsOf(db: Queryable, orgId: string, allowedHosts: string[]): Promise<string[]> {
  const org = await db('organizations').where({ id: orgId }).first('loopback_webhooks');
  return hostsAllowedFor(allowedHosts, Boolean(org?.loopback_webhooks));
}

/**
 * Webhook settings as the worker and the endpoint operations use them, from the WEBHOOK_* settings
 * (src/config.ts, parsed once at start). Durations are in milliseconds; tests pass small values.
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

type WebhookConfig = Pick<
  Config,
  | 'webhookAllowedHosts'
  | 'webhookTimeoutMs'
  | 'webhookRetryBaseMs'
  | 'webhookRetryMaxMs'
  | 'webhookRetryHours'
  | 'webhookSecretOverlapHours'
  | 'webhookConcurrency'
  | 'webhookDeliveryRetentionDays'
>;

export function webhookSettings(config: WebhookConfig): WebhookSettings {
  return {
    allowedHosts: config.webhookAllowedHosts,
    timeoutMs: config.webhookTimeoutMs,
    retryBaseMs: config.webhookRetryBaseMs,
    retryMaxMs: config.webhookRetryMaxMs,
    giveUpAfterMs: config.webhookRetryHours * HOUR,
    secretOverlapMs: config.webhookSecretOverlapHours * HOUR,
    concurrency: config.webhookConcurrency,
    deliveryRetentionMs: config.webhookDeliveryRetentionDays * 24 * HOUR,
  };
}
