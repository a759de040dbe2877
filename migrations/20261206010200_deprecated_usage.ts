import type { Knex } from 'knex';

/**
 * Requests that used something deprecated (a deprecated API version, or an operation, parameter or
 * field deprecated in the version they ran at), counted per organization, day, credential,
 * version, operation and deprecated thing (src/versions/usage.ts): GET /deprecated-usage and the
 * admin CLI read the last 30 days.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE deprecated_usage (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      day date NOT NULL,
      credential_id text NOT NULL,
      version text NOT NULL,
      operation_id text NOT NULL,
      what text NOT NULL,
      count bigint NOT NULL,
      last_request_id text NOT NULL,
      last_request_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, day, credential_id, version, operation_id, what)
    )`);
  await knex.raw(
    `COMMENT ON TABLE deprecated_usage IS 'Deprecated usage per organization, day, credential, API version, operation and deprecated thing (GET /deprecated-usage).'`,
  );
  for (const [column, comment] of COLUMNS) await knex.raw(`COMMENT ON COLUMN deprecated_usage.${column} IS '${comment}'`);
}

const COLUMNS = [
  ['organization_id', 'The organization whose credential made the requests.'],
  ['day', 'The day (database time zone) the requests were made.'],
  ['credential_id', 'The credential: an OAuth client id or an API key id.'],
  ['version', 'The API version the requests ran at (YYYY-MM-DD).'],
  ['operation_id', 'The operationId they called.'],
  ['what', 'What was deprecated: version, operation, query.<name> or body.<name>.'],
  ['count', 'How many such requests that day.'],
  ['last_request_id', 'X-Request-Id of the latest one.'],
  ['last_request_at', 'When the latest one was made.'],
] as const;

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deprecated_usage');
}
