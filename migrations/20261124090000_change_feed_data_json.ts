import type { Knex } from 'knex';

/**
 * A change's `data` is stored as `json`, the text it was written as, not as `jsonb`. It is only
 * ever read back whole, as text (GET /changes, webhook payloads): nothing queries inside it, so
 * jsonb's binary form bought nothing and cost a full parse and conversion of every entry in the
 * writing transaction (a 1000-element batch writes 1000 of them). As json it also keeps the key
 * order of the read endpoint it was taken from.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE change_feed ALTER COLUMN data TYPE json USING data::json');
  await knex.raw(
    "COMMENT ON COLUMN change_feed.data IS 'The object as its read endpoint returned it at this change (json text, read back whole); a tombstone for deletions.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE change_feed ALTER COLUMN data TYPE jsonb USING data::jsonb');
  await knex.raw("COMMENT ON COLUMN change_feed.data IS 'The object as its read endpoint returned it at this change; a tombstone for deletions.'");
}
