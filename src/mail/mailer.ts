import type { ConnectionOptions } from 'node:tls';
import type { Db } from '../db/knex';
import { measureAtScrape, outboxBacklog } from '../metrics';
import { parseSmtpUrl, sendMail, smtpTransport } from './smtp';

/**
 * Delivers the outbox (outbox_emails) through SMTP when SMTP_URL is set, in three steps so that no
 * row lock is held across network I/O: claim a few rows (one statement: `claimed_at` set on rows
 * picked with FOR UPDATE SKIP LOCKED, committed at once), send them, record each outcome in a
 * statement of its own. Several service processes never send the same mail twice; a claim older
 * than CLAIM_TIMEOUT (its worker died mid-send) is taken over. A failure only records
 * `attempts`/`last_error`; the row is retried later with a delay growing by one minute per
 * attempt, up to MAX_ATTEMPTS.
 */
export const MAX_ATTEMPTS = 10;
const CLAIM_TIMEOUT = "interval '10 minutes'";

export interface DeliverOptions {
  limit?: number;
  /** Only this organization's mail (lets a test deliver its own rows). */
  organizationId?: string;
  timeoutMs?: number;
  /** TLS options for the SMTP connection (a test's certificate authority). */
  tls?: ConnectionOptions;
  /** The sender when SMTP_URL names none (MAIL_FROM). */
  from?: string;
  /**
   * True once the caller is stopping (the worker's shutdown): no further message is sent, and the
   * claims on the ones not sent are given back at once (not after CLAIM_TIMEOUT). With 20 messages
   * to a mail server that does not answer, a run would otherwise hold a shutdown 20 timeouts long.
   */
  stopping?: () => boolean;
}

export interface DeliveryResult {
  sent: number;
  failed: number;
}

interface Claimed {
  id: string;
  to_address: string;
  subject: string;
  body: string;
  claimed_at: Date;
}

const DUE = `sent_at IS NULL AND attempts < ${MAX_ATTEMPTS}
  AND (claimed_at IS NULL OR claimed_at < now() - ${CLAIM_TIMEOUT})
  AND (last_attempt_at IS NULL OR last_attempt_at < now() - attempts * interval '1 minute')`;

async function claim(db: Db, limit: number, organizationId?: string): Promise<Claimed[]> {
  const { rows } = await db.raw<{ rows: Claimed[] }>(
    `UPDATE outbox_emails SET claimed_at = now()
      WHERE id IN (SELECT id FROM outbox_emails WHERE ${DUE} ${organizationId ? 'AND organization_id = ?' : ''}
                   ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)
      RETURNING id, to_address, subject, body, claimed_at`,
    organizationId ? [organizationId, limit] : [limit],
  );
  return rows;
}

/** Gives back claims not acted on (still ours): the rows are due again at once. */
async function release(db: Db, rows: Claimed[]): Promise<void> {
  // One claim statement gave them all the same claimed_at.
  await db('outbox_emails')
    .whereIn(
      'id',
      rows.map((r) => r.id),
    )
    .where({ claimed_at: rows[0].claimed_at })
    .update({ claimed_at: null });
}

/** Records an outcome, only while the claim is still ours (not taken over after a timeout). */
async function record(db: Db, row: Claimed, error: string | null): Promise<void> {
  await db('outbox_emails')
    .where({ id: row.id, claimed_at: row.claimed_at })
    .update({
      sent_at: error === null ? db.fn.now() : null,
      last_attempt_at: db.fn.now(),
      attempts: db.raw('attempts + 1'),
      last_error: error,
      claimed_at: null,
    });
}

export async function deliverPending(db: Db, smtpUrl: string, opts: DeliverOptions = {}): Promise<DeliveryResult> {
  const target = parseSmtpUrl(smtpUrl, opts.from);
  const result = { sent: 0, failed: 0 };
  const rows = await claim(db, opts.limit ?? 20, opts.organizationId);
  if (!rows.length) return result;
  const transport = smtpTransport(target, opts.timeoutMs, opts.tls);
  try {
    for (const [i, row] of rows.entries()) {
      if (opts.stopping?.()) {
        await release(db, rows.slice(i));
        break;
      }
      try {
        await sendMail(transport, { from: target.from, to: row.to_address, subject: row.subject, body: row.body });
        await record(db, row, null);
        result.sent += 1;
      } catch (err) {
        await record(db, row, String(err instanceof Error ? err.message : err).slice(0, 1000));
        result.failed += 1;
      }
    }
  } finally {
    transport.close();
  }
  return result;
}

/** outbox_emails_pending on /metrics: mail not yet sent and still to be tried. */
export function watchOutboxBacklog(db: Db): void {
  measureAtScrape(outboxBacklog, async () => {
    const row = await db('outbox_emails').whereNull('sent_at').where('attempts', '<', MAX_ATTEMPTS).count<{ n: string }[]>('* as n').first();
    return Number(row?.n ?? 0);
  });
}
