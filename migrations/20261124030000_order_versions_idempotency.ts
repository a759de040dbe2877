import type { Knex } from 'knex';

/**
 * Orders get a version (the handshake with an integrating system compares it, and the ETag of
 * GET /orders/{id} is built from it); writes get stored responses for Idempotency-Key retries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.integer('version')
      .notNullable()
      .defaultTo(0)
      .comment('0 as created; +1 for every request that changes the order or its items in the service (never for integration-state reports).');
  });
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.comment('Stored responses of writes sent with an Idempotency-Key header, replayed when the same request is retried.');
    t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').comment('Keys are per organization.');
    t.text('key').notNullable().comment('The Idempotency-Key header value as sent (quotes of the structured-field form removed).');
    t.text('fingerprint').notNullable().comment('sha256 of method, path with query and body: a reuse with another request is refused.');
    t.integer('status').notNullable().comment('The stored response status, replayed as is.');
    t.text('body').notNullable().comment('The stored response body text (empty for none).');
    t.jsonb('headers').notNullable().defaultTo('{}').comment('Response headers replayed with the body (ETag, Location...).');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the first request ran.');
    t.specificType('expires_at', 'timestamptz(3)').notNullable().comment('From then the key is forgotten (at least 24 hours after created_at).');
    t.primary(['organization_id', 'key']);
    // Pruning finds an organization's expired keys without a scan.
    t.index(['organization_id', 'expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('version');
  });
}
