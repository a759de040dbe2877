import type { Knex } from 'knex';

/**
 * Rate-limit counters are written by every request (two windows each) and must not cost a WAL
 * flush each: a transaction that writes only unlogged tables commits without waiting for the WAL
 * to reach disk, where a logged counter made every request of an organization wait for its
 * predecessor's flush on the same row. What an unlogged table gives up is fine for counters of a
 * second or an hour: PostgreSQL empties it after a crash, and a standby does not have it (a
 * failover starts every window afresh).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rate_limits SET UNLOGGED');
  await knex.raw(
    "COMMENT ON TABLE rate_limits IS 'Rate-limit counters shared by every instance (rate-limiter-flexible RateLimiterPostgres); unlogged: emptied after a crash, not on standbys.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rate_limits SET LOGGED');
  await knex.raw("COMMENT ON TABLE rate_limits IS 'Rate-limit counters shared by every instance (rate-limiter-flexible RateLimiterPostgres).'");
}
