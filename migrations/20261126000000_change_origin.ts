import type { Knex } from 'knex';

const SYSTEM = '{"credentialType":"system","credentialId":null,"requestId":null,"idempotencyKey":null}';

/**
 * Who made each change (src/feed/origin.ts). Entries written before this are the system's: their
 * credential was never recorded. A webhook endpoint's `excludeOrigins` (credential ids) is not sent
 * the entries those credentials made.
 */
export async function up(knex: Knex): Promise<void> {
  // A constant default: PostgreSQL adds the column without rewriting the table.
  await knex.raw(`ALTER TABLE change_feed ADD COLUMN origin json NOT NULL DEFAULT '${SYSTEM}'::json`);
  await knex.raw(
    "COMMENT ON COLUMN change_feed.origin IS 'Who made the change: {credentialType, credentialId, requestId, idempotencyKey} (json text, read back whole; credentialId filtered by excludeOrigins).'",
  );
  await knex.raw('ALTER TABLE webhook_endpoints ADD COLUMN exclude_origins text[]');
  await knex.raw(
    "COMMENT ON COLUMN webhook_endpoints.exclude_origins IS 'Credential ids (OAuth client id or API key id) whose entries are not delivered; null delivers all.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN exclude_origins');
  await knex.raw('ALTER TABLE change_feed DROP COLUMN origin');
}
