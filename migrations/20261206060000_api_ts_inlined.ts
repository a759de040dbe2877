import type { Knex } from 'knex';

/**
 * `api_ts` (every timestamp of every read, built in SQL) was declared IMMUTABLE over a body that
 * calls `to_char`, which PostgreSQL marks STABLE. The planner inlines a SQL function only when its
 * body is no more volatile than its declaration, so each call ran as a function call of its own:
 * about 5 µs each, half of a single job read's time in the database and a millisecond or more of
 * a 500-item page. Declared STABLE, as its body is, it is inlined into the statements that use it
 * and costs what `to_char` costs. Nothing indexes or stores it (an expression index would need it
 * IMMUTABLE: none exists), and its results are the same: only the plan changes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER FUNCTION api_ts(timestamptz) STABLE');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER FUNCTION api_ts(timestamptz) IMMUTABLE');
}
