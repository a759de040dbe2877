import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export const newSecret = (): string => 'whsec_' + randomBytes(32).toString('base64');

/**
 * The `webhook-signature` header: one `v1,<base64>` signature per secret, space-separated, as the
 * specification allows during a rotation (a receiver accepts the message if any one verifies).
 * The HMAC itself is the standardwebhooks package's.
 */
export function signatureHeader(secrets: string[], messageId: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' ');
}
