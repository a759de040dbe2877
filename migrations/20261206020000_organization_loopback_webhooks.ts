import type { Knex } from 'knex';

/**
 * A development organization's webhook receivers may be on this machine: the demo organization
 * `npm start` creates on the embedded database has it on (src/admin/demo.ts), every other
 * organization off unless `admin org setting --loopback-webhooks on` says so (src/webhooks/ssrf.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.boolean('loopback_webhooks')
      .notNullable()
      .defaultTo(false)
      .comment('Webhook endpoints may target this machine (localhost, 127.0.0.1, ::1), also over plain http, besides WEBHOOK_ALLOWED_HOSTS.');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('loopback_webhooks');
  });
}
