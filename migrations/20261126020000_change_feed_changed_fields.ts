import type { Knex } from 'knex';

/**
 * What an update changed (src/feed/unchanged.ts): each feed entry that changes an existing object
 * stores the top-level fields of its `data` that changed and their previous values, and a webhook
 * endpoint may ask only for updates that change some fields (as `GET /changes?fields=`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('change_feed', (t) => {
    t.jsonb('changed_fields')
      .nullable()
      .comment(
        'Names of the top-level fields of data this update changed (updatedAt never); null for creations, deletions and objects without a known previous state.',
      );
    t.json('previous').nullable().comment('The values those fields had before the change (null when changed_fields is).');
  });
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.specificType('fields', 'text[]')
      .nullable()
      .comment('Only update entries that changed one of these fields are sent (creations and deletions always); null: every entry.');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => t.dropColumn('fields'));
  await knex.schema.alterTable('change_feed', (t) => {
    t.dropColumn('previous');
    t.dropColumn('changed_fields');
  });
}
