import type { Queryable } from '../db/knex';

/**
 * Mail the service sends is written to `outbox_emails` in the transaction of the change that
 * causes it (so it is sent exactly when that change commits) and delivered later by mailer.ts.
 */
export interface OutgoingEmail {
  organizationId: string;
  to: string;
  subject: string;
  body: string;
  kind: 'registration';
}

export async function enqueueEmail(db: Queryable, mail: OutgoingEmail): Promise<void> {
  await db('outbox_emails').insert({
    organization_id: mail.organizationId,
    to_address: mail.to,
    subject: mail.subject,
    body: mail.body,
    kind: mail.kind,
  });
}

/**
 * A recipient as an address header value, `"Display Name" <address>`. The name is a quoted string
 * (RFC 5322 3.2.4: `"` and `\` escaped) with control characters (CR, LF...) turned into spaces, so
 * whatever a user's name holds (`x <other@example.com>, y`, a line break and a `Bcc:`) stays a
 * name: the mail goes to `address` alone.
 */
export function mailbox(name: string, address: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean ? `"${clean.replace(/["\\]/g, (c) => `\\${c}`)}" <${address}>` : address;
}
