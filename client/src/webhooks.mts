import { Webhook } from 'standardwebhooks';
import type { components } from '../../generated/api-types.js';

/** The body of a webhook delivery: `{ type, timestamp, data }`, `data` the change-feed entry. */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** Why a delivery was refused: no signature headers, a timestamp outside the tolerance, no matching signature, a body that is not JSON. */
export type WebhookRefusal = 'unsigned' | 'stale' | 'signature' | 'body';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Headers as node:http, express or fetch give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The Standard Webhooks library's own tolerance, which it always applies: a smaller one can be asked for. */
const MAX_TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a delivery (Standard Webhooks: the `webhook-signature` HMAC over `webhook-id`,
 * `webhook-timestamp` and the raw body) with one secret or several (during a rotation, the
 * previous and the new one), and returns its parsed body. Throws a WebhookVerificationError that
 * says why otherwise. `rawBody` is the body exactly as received: re-serialized JSON does not verify.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: { toleranceSeconds?: number } = {},
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const h = lowerCased(headers);
  const missing = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].filter((name) => !h[name]);
  if (missing.length) throw new WebhookVerificationError('unsigned', `the delivery is not signed: no ${missing.join(', ')} header`);
  const timestamp = Number(h['webhook-timestamp']);
  const tolerance = Math.min(options.toleranceSeconds ?? MAX_TOLERANCE_SECONDS, MAX_TOLERANCE_SECONDS);
  const skew = Math.floor(Date.now() / 1000) - timestamp;
  if (!Number.isInteger(timestamp) || Math.abs(skew) > tolerance) {
    throw new WebhookVerificationError(
      'stale',
      `the delivery's timestamp ${h['webhook-timestamp']} is ${skew} s off this machine's clock (tolerance ${tolerance} s): a replay, or a clock to fix`,
    );
  }
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new TypeError('verifyWebhook: no secret given');
  const signed = list.some((secret) => {
    try {
      new Webhook(secret).verify(body, h);
      return true;
    } catch {
      return false;
    }
  });
  if (!signed)
    throw new WebhookVerificationError(
      'signature',
      `no signature of the delivery matches ${list.length === 1 ? 'the secret' : `any of the ${list.length} secrets`}: altered, or signed with another secret`,
    );
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('body', 'the signed body is not JSON');
  }
}

function lowerCased(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (out[name] = value));
    return out;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
