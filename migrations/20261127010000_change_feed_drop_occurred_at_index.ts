import type { Knex } from 'knex';

/**
 * change_feed loses its index on (organization_id, occurred_at): every read of an organization's
 * feed goes by position, and with statistics taken while the feed was nearly empty (a new
 * database, autovacuum off or behind) PostgreSQL read a page of 1000 through this index instead:
 * every entry of the organization, filtered on position and sorted (40 ms at 139,000 entries
 * against 3 for the primary key's ordered scan). The retention, its one user, now finds its cut
 * through the primary key (src/feed/retention.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS change_feed_org_occurred_at');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS change_feed_org_occurred_at ON change_feed (organization_id, occurred_at)');
}
