import type { Knex } from 'knex';

/**
 * The API version each credential is pinned to (src/auth/credentials.ts): requests without an
 * `Api-Version` header run at it. A new credential is pinned at its first authenticated request
 * (null until then). The credentials that exist now were written against the contract as it was
 * published until today, the first dated version: they are pinned to it, so no integration
 * changes shape under its feet; the admin CLI moves a pin (`api-key version`, `client version`).
 */
const TABLES = ['api_keys', 'oauth_clients'] as const;
const FIRST_VERSION = '2026-06-01';

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.text('api_version').nullable().comment('API version of requests without Api-Version (YYYY-MM-DD); null until its first authenticated request.');
    });
    await knex(table).update({ api_version: FIRST_VERSION });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.schema.alterTable(table, (t) => t.dropColumn('api_version'));
}
