import type { Knex } from 'knex';

/**
 * Retention of the change feed: entries older than CHANGE_FEED_RETENTION_DAYS are deleted by
 * src/feed/retention.ts, which records per organization the last position it removed, so a
 * cursor pointing before that is answered exactly with 410 Gone (never a silent jump).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_heads', (t) => {
    t.bigInteger('pruned_through').notNullable().defaultTo(0).comment('The last position deleted by retention (0: none); entries after it are all kept.');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('feed_heads', (t) => {
    t.dropColumn('pruned_through');
  });
}
