import type { Knex } from 'knex';
import { orderIndexes, tenantTable } from '../src/db/schema-helpers';

export async function up(knex: Knex): Promise<void> {
  // API timestamps: ISO 8601 UTC with milliseconds, built in SQL so lists never parse dates in node.
  await knex.raw(`
    CREATE FUNCTION api_ts(t timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$`);

  await knex.schema.createTable('organizations', (t) => {
    t.comment('Tenants: every other row belongs to one organization, and every API credential acts in one.');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('The organization (tenant) ID.');
    t.text('name').notNullable().comment("The organization's name.");
    // Switched on by a support request (admin CLI): POST /jobs/{idOrCode}/nextPurchaseOrderNumber.
    t.boolean('po_counter_enabled').notNullable().defaultTo(false).comment('Whether the next-purchase-order-number operations are enabled.');
    // Set when the demo dataset was loaded (admin CLI `demo-data`), so it is never loaded twice.
    t.specificType('demo_loaded_at', 'timestamptz(3)').comment('When the demo dataset was loaded, if it was.');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the organization was created.');
    t.specificType('updated_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the organization last changed.');
  });

  await knex.schema.createTable('users', (t) => {
    t.comment('Users of an organization (API resource User); API credentials act as one of them.');
    tenantTable(t, knex);
    t.text('email').notNullable().comment('API field `email`: e-mail address, unique in the organization regardless of case.');
    t.text('first_name').notNullable().comment('API field `firstName`: first name.');
    t.text('last_name').notNullable().comment('API field `lastName`: last name.');
    t.text('display_name').notNullable().comment('API field `displayName`: the name shown for the user (first and last name when created through the API).');
    t.text('role')
      .notNullable()
      .comment('API field `role`: BackOffice, Field, FieldOrdering, Procurement or Warehouse (what the user may access in the application).');
    t.boolean('admin')
      .notNullable()
      .defaultTo(false)
      .comment('API field `admin`: whether the user may perform any operation, including changing jobs, orders and users.');
    t.text('avatar_url').comment('API field `avatarUrl`: URL of a png or jpeg image; NULL when none.');
    t.text('phone').comment('API field `phone`: phone number; NULL when none.');
    t.check(`role IN ('BackOffice','Field','FieldOrdering','Procurement','Warehouse')`);
    orderIndexes(t, ['created_at', 'updated_at', 'display_name']);
  });
  // E-mail addresses are unique per organization regardless of case.
  await knex.raw('CREATE UNIQUE INDEX users_org_email_unique ON users (organization_id, lower(email))');

  // Legacy API keys: only a SHA-256 hash of the (high-entropy) key is kept.
  await knex.schema.createTable('api_keys', (t) => {
    t.comment('Legacy API keys (hashed), at most one live per organization; each acts as one user.');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment("The key's row ID (never shown).");
    t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').comment('The organization the key acts in.');
    t.uuid('user_id').notNullable().comment('The user the key acts as.');
    t.text('key_hash').notNullable().unique().comment('SHA-256 of the key; the key itself is never stored.');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the key was issued.');
    t.specificType('revoked_at', 'timestamptz(3)').comment('When the key was revoked (rotated); NULL while it is live.');
    t.foreign(['organization_id', 'user_id']).references(['organization_id', 'id']).inTable('users').onDelete('CASCADE');
  });
  // At most one live key per organization: issuing a new one revokes the previous one.
  await knex.raw('CREATE UNIQUE INDEX api_keys_one_live_per_org ON api_keys (organization_id) WHERE revoked_at IS NULL');

  await knex.schema.createTable('oauth_clients', (t) => {
    t.comment('OAuth 2.0 clients (client credentials grant) of an organization; their tokens act as one user.');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment("The client's row ID (the cid claim of its tokens).");
    t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').comment('The organization the client acts in.');
    t.uuid('user_id').notNullable().comment("The user the client's tokens act as.");
    t.text('client_id').notNullable().unique().comment('The public client_id (OAuth 2.0 client credentials).');
    t.text('secret_hash').notNullable().comment('SHA-256 of the client secret; the secret itself is never stored.');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the client was created.');
    // Deleting a client keeps the row (so its tokens are recognised as revoked) and stamps this.
    t.specificType('deleted_at', 'timestamptz(3)').comment('When the client was deleted (its tokens are refused from then on).');
    t.foreign(['organization_id', 'user_id']).references(['organization_id', 'id']).inTable('users').onDelete('CASCADE');
  });

  await knex.schema.createTable('tax_codes', (t) => {
    t.comment('Tax codes (API resource TaxCode) applied to orders, items, jobs and locations; soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    t.text('code').notNullable().comment('API field `code`: human-readable code, unique among the live tax codes of the organization.');
    t.text('description').notNullable().defaultTo('').comment('API field `description`: description (empty when none).');
    // Despite its name, a fraction: 0.0725 is 7.25 %.
    t.double('tax_percent').notNullable().comment('API field `taxPercent`: the tax rate as a fraction, not in percent (0.0725 means 7.25 %).');
    t.text('tax_type').notNullable().defaultTo('SALES').comment('API field `taxType`: SALES (charged by the vendor) or USE (self-assessed by the buyer).');
    t.check(`tax_type IN ('SALES','USE')`);
    orderIndexes(t, ['code', 'created_at', 'updated_at', 'description']);
  });
  // Codes are unique among live rows, so a deleted code can be used again.
  await knex.raw('CREATE UNIQUE INDEX tax_codes_org_code_unique ON tax_codes (organization_id, code) WHERE deleted_at IS NULL');

  await knex.schema.createTable('units_of_measure', (t) => {
    t.comment('Units of measure (API resource UnitOfMeasure) that order items use by code.');
    tenantTable(t, knex);
    t.text('code').notNullable().comment('API field `code`: the unit code items carry (e.g. EA, LF), unique in the organization.');
    t.text('description').notNullable().defaultTo('').comment('API field `description`: description (empty when none).');
    t.text('multiplier')
      .notNullable()
      .defaultTo('E')
      .comment('API field `multiplier`: how prices in this unit scale, E per unit, C per hundred units, M per thousand units.');
    t.check(`multiplier IN ('E','C','M')`);
    t.unique(['organization_id', 'code']);
    orderIndexes(t, ['created_at', 'updated_at', 'description']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['units_of_measure', 'tax_codes', 'oauth_clients', 'api_keys', 'users', 'organizations']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('DROP FUNCTION IF EXISTS api_ts(timestamptz)');
}
