import type { Knex } from 'knex';

/**
 * Least privilege: OAuth clients and API keys carry scopes (src/auth/scopes.ts). Existing
 * credentials get both scopes, so they keep the full access they had.
 */
const TABLES = ['oauth_clients', 'api_keys'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.specificType('scopes', 'text[]')
        .notNullable()
        .defaultTo(knex.raw("'{read,write}'::text[]"))
        .comment('What the credential may do: read (GET operations) and/or write (every other method). Default: both.');
    });
    await knex.raw(`ALTER TABLE ?? ADD CONSTRAINT ?? CHECK (cardinality(scopes) > 0 AND scopes <@ '{read,write}'::text[])`, [table, `${table}_scopes_known`]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('scopes'));
  }
}
