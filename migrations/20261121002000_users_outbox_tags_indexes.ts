import type { Knex } from 'knex';

/**
 * Phases, cost categories, users, tags: indexes for the orderings and filters the contract allows
 * that the organization-structure migration does not cover yet, and the outbox's retry bookkeeping.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.index(['organization_id', 'email', 'id']);
    t.index(['organization_id', 'phone']);
  });
  await knex.schema.alterTable('tags', (t) => {
    t.index(['organization_id', 'title', 'id']);
  });
  // GET /job-phases, /job-categories and /phase-categories list one scope of the organization.
  await knex.raw('CREATE INDEX phases_org_job_created ON phases (organization_id, created_at, id) WHERE job_id IS NOT NULL AND deleted_at IS NULL');
  await knex.schema.alterTable('outbox_emails', (t) => {
    // When delivery was last tried: failed mail is retried with a growing delay.
    t.specificType('last_attempt_at', 'timestamptz(3)').comment(
      'When delivery was last tried; a failed e-mail is retried once `attempts` minutes have passed since. NULL: never tried.',
    );
  });
  await knex.raw('CREATE INDEX outbox_emails_pending ON outbox_emails (created_at) WHERE sent_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS outbox_emails_pending');
  await knex.raw('DROP INDEX IF EXISTS phases_org_job_created');
  await knex.schema.alterTable('outbox_emails', (t) => t.dropColumn('last_attempt_at'));
  await knex.schema.alterTable('tags', (t) => t.dropIndex(['organization_id', 'title', 'id']));
  await knex.schema.alterTable('users', (t) => {
    t.dropIndex(['organization_id', 'email', 'id']);
    t.dropIndex(['organization_id', 'phone']);
  });
}
