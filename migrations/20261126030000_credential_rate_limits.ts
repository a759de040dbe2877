import type { Knex } from 'knex';

/**
 * A credential's own rate limits (`admin api-key rotate` / `client create` with
 * `--rate-limit-burst/--rate-limit-hourly`): counted per credential, in addition to its
 * organization's limits (src/http/rate-limit.ts). Null: only the organization's limits apply.
 */
const TABLES = ['api_keys', 'oauth_clients'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.integer('rate_limit_burst').nullable().comment("This credential's own requests per second, besides its organization's; null: only the organization's.");
      t.integer('rate_limit_hourly').nullable().comment("This credential's own requests per hour, besides its organization's; null: only the organization's.");
    });
    await knex.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_rate_limits_positive CHECK (rate_limit_burst > 0 AND rate_limit_hourly > 0)`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_rate_limits_positive`);
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('rate_limit_burst');
      t.dropColumn('rate_limit_hourly');
    });
  }
}
