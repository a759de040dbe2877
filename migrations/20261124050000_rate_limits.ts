import type { Knex } from 'knex';

/**
 * Rate limits: the counters every instance shares (rate-limiter-flexible's RateLimiterPostgres
 * table, in the layout it expects; created here so the service never runs DDL at request time) and
 * the per-organization overrides set with `admin org setting --rate-limit-burst/--rate-limit-hourly`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary().comment('Counter key: `<prefix>:<scope>:<id>:<window>`, e.g. `rl:org:<uuid>:s`, or a token-endpoint failure key.');
    t.integer('points').notNullable().defaultTo(0).comment('Requests (or failures) counted in the current window.');
    t.bigInteger('expire').comment('When the current window ends, in ms since the epoch (rate-limiter-flexible layout).');
  });
  await knex.raw("COMMENT ON TABLE rate_limits IS 'Rate-limit counters shared by every instance (rate-limiter-flexible RateLimiterPostgres).'");
  await knex.schema.alterTable('organizations', (t) => {
    t.integer('rate_limit_burst').nullable().comment('Requests per second allowed to the organization; null: RATE_LIMIT_BURST.');
    t.integer('rate_limit_hourly').nullable().comment('Requests per hour allowed to the organization; null: RATE_LIMIT_HOURLY.');
  });
  await knex.raw('ALTER TABLE organizations ADD CONSTRAINT organizations_rate_limits_positive CHECK (rate_limit_burst > 0 AND rate_limit_hourly > 0)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE organizations DROP CONSTRAINT organizations_rate_limits_positive');
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('rate_limit_burst');
    t.dropColumn('rate_limit_hourly');
  });
  await knex.schema.dropTable('rate_limits');
}
