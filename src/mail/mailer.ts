import type { Db } from '../db/knex';
import { parseSmtpUrl, sendMail, SmtpTarget } from './smtp';

/**
 * Delivers the outbox (outbox_emails) through SMTP when SMTP_URL is set. Rows are claimed with
 * FOR UPDATE SKIP LOCKED, so several service processes never send the same mail twice. A failure
 * only records `attempts`/`last_error`; the row is retried later with a delay growing by one
 * minute per attempt, up to MAX_ATTEMPTS.
 */
export const MAX_ATTEMPTS = 10;

export interface DeliverOptions {
  limit?: number;
  /** Only this organization's mail (lets a test deliver its own rows). */
  organizationId?: string;
  timeoutMs?: number;
}

export interface DeliveryResult {
  sent: number;
  failed: number;
}

export async function deliverPending(db: Db, smtpUrl: string, opts: DeliverOptions = {}): Promise<DeliveryResult> {
  const target: SmtpTarget = parseSmtpUrl(smtpUrl);
  const result = { sent: 0, failed: 0 };
  await db.transaction(async (tx) => {
    const q = tx('outbox_emails')
      .whereNull('sent_at')
      .where('attempts', '<', MAX_ATTEMPTS)
      .where((w) => w.whereNull('last_attempt_at').orWhereRaw("last_attempt_at < now() - attempts * interval '1 minute'"))
      .orderBy('created_at')
      .limit(opts.limit ?? 20)
      .forUpdate()
      .skipLocked()
      .select('id', 'to_address', 'subject', 'body');
    if (opts.organizationId) q.where('organization_id', opts.organizationId);
    for (const row of await q) {
      try {
        await sendMail(target, { from: target.from, to: row.to_address, subject: row.subject, body: row.body }, opts.timeoutMs);
        await tx('outbox_emails')
          .where({ id: row.id })
          .update({ sent_at: tx.fn.now(), last_attempt_at: tx.fn.now(), attempts: tx.raw('attempts + 1'), last_error: null });
        result.sent += 1;
      } catch (err) {
        await tx('outbox_emails')
          .where({ id: row.id })
          .update({ last_attempt_at: tx.fn.now(), attempts: tx.raw('attempts + 1'), last_error: String(err instanceof Error ? err.message : err).slice(0, 1000) });
        result.failed += 1;
      }
    }
  });
  return result;
}

/** Runs deliverPending every `intervalMs` (never two runs at once); returns a stop function. */
export function startMailer(db: Db, smtpUrl: string, intervalMs = 15000): () => void {
  parseSmtpUrl(smtpUrl); // a malformed SMTP_URL fails at start, not silently on every tick
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await deliverPending(db, smtpUrl);
    } catch (err) {
      console.error('mailer:', err instanceof Error ? err.message : err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
