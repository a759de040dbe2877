import { invalidField } from '../errors';

/**
 * The one rule of every integration report (orders, change orders, delivery receipts, invoices):
 * `ERROR` needs a non-empty `integrationMessage` (400 otherwise); the message is stored as given,
 * and an omitted or null one clears the stored message. Returns the message to store.
 */
export function reportedMessage(body: { integrationState: string; integrationMessage?: string | null }): string | null {
  const message = body.integrationMessage ?? null;
  if (body.integrationState === 'ERROR' && !message?.trim()) {
    throw invalidField('body.integrationMessage', 'required', 'is required when integrationState is ERROR');
  }
  return message;
}
