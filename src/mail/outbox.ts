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
