import type { Knex } from 'knex';

/**
 * The outbox worker claims rows in one short statement, commits, sends without holding any row
 * lock, then records the outcome in another short statement (src/mail/mailer.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_emails', (t) => {
    t.specificType('claimed_at', 'timestamptz(3)').comment(
      'When a worker took the row to send it; NULL when no worker holds it. A claim older than the claim timeout is taken over (its worker died).',
    );
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_emails', (t) => t.dropColumn('claimed_at'));
}
