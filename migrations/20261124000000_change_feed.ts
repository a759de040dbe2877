import type { Knex } from 'knex';

/**
 * The change feed (GET /changes): one row per committed change, numbered per organization in
 * commit order. `feed_heads` holds each organization's last position; a writing transaction
 * advances it as its very last statement (src/feed/append.ts), so the row lock it takes there is
 * held until that transaction commits and the next writer of the same organization can only take
 * its positions after that commit: positions are handed out in commit order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('feed_heads', (t) => {
    t.comment('Per organization, the last change feed position handed out; its row lock orders positions by commit.');
    t.uuid('organization_id')
      .primary()
      .references('id')
      .inTable('organizations')
      .onDelete('CASCADE')
      .comment('The organization this head numbers changes for.');
    t.bigInteger('position').notNullable().defaultTo(0).comment('The last position handed out (0: none yet).');
  });
  await knex.schema.createTable('change_feed', (t) => {
    t.comment('The change feed (GET /changes): one entry per committed change, numbered per organization in commit order.');
    t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').comment('Owner; positions are per organization.');
    t.bigInteger('position').notNullable().comment('Commit-ordered number within the organization, from feed_heads.');
    t.text('type').notNullable().comment('Event type, e.g. vendor.updated, item.deleted, order.integration_state_changed.');
    t.text('resource').notNullable().comment('Resource name, e.g. vendor, order, item.');
    t.uuid('resource_id').notNullable().comment('Id of the changed object.');
    t.specificType('occurred_at', 'timestamptz(3)')
      .notNullable()
      .defaultTo(knex.raw('clock_timestamp()'))
      .comment('When the entry was numbered, just before its commit.');
    t.jsonb('data').notNullable().comment('The object as its read endpoint returned it at this change; a tombstone for deletions.');
    t.primary(['organization_id', 'position']);
  });
  // Retention deletes by age; filtered pages read by type or resource within an organization.
  await knex.raw('CREATE INDEX change_feed_org_occurred_at ON change_feed (organization_id, occurred_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('change_feed');
  await knex.schema.dropTable('feed_heads');
}
