import type { Knex } from 'knex';

/**
 * `deprecated_usage.what` holds more than its first comment (migration 20261206010200) said:
 * header parameters, body paths with `[]` for an array's elements, and the deprecated fields a
 * success reply carries (`response.<Schema>.<field>`, src/versions/usage.ts). The comment says so.
 */
const WHAT =
  'What was deprecated: version (the version itself), operation, query.<name> or header.<name> (a parameter given), ' +
  "body.<path> (a body field present, [] for an array's elements: body.items[].note), or response.<Schema>.<field> " +
  '(a deprecated field its success reply carries: response.Order.version).';

const FIRST = 'What was deprecated: version, operation, query.<name> or body.<name>.';

/** COMMENT takes a literal, not a bound parameter. */
const comment = (knex: Knex, text: string) => knex.raw(`COMMENT ON COLUMN deprecated_usage.what IS '${text.replace(/'/g, "''")}'`);

export async function up(knex: Knex): Promise<void> {
  await comment(knex, WHAT);
}

export async function down(knex: Knex): Promise<void> {
  await comment(knex, FIRST);
}
