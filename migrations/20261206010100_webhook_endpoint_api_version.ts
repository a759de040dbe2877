import type { Knex } from 'knex';

/**
 * The API version each webhook endpoint's payloads are rendered at (src/background/deliver.ts),
 * and a change of it at a feed position: entries up to `api_version_after` go out at
 * `previous_api_version`, later ones at `api_version`. The endpoints that exist now were set up
 * against the first dated version, and keep it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.text('api_version').notNullable().defaultTo('2026-06-01').comment('API version of its payloads (YYYY-MM-DD).');
    t.bigInteger('api_version_after').nullable().comment('Feed position after which api_version applies; entries up to it go out at previous_api_version.');
    t.text('previous_api_version').nullable().comment('API version of the entries up to api_version_after.');
  });
  // Only the existing endpoints take that default: every new one is given its version.
  await knex.raw('ALTER TABLE webhook_endpoints ALTER COLUMN api_version DROP DEFAULT');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.dropColumn('api_version');
    t.dropColumn('api_version_after');
    t.dropColumn('previous_api_version');
  });
}
