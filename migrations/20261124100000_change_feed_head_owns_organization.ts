import type { Knex } from 'knex';

/**
 * The change feed's entries reach their organization through its head, not a foreign key of their own.
 *
 * A foreign key is checked row by row: a 1000-element batch appended 1000 entries and PostgreSQL
 * looked up (and share-locked) the same organization 1000 times in the writing transaction. The
 * entries are only ever written by the append statement (src/feed/append.ts), in the same
 * statement as their organization's `feed_heads` row, which keeps its foreign key: an entry cannot
 * exist without a head, nor a head without its organization. What the entries' key did besides,
 * going when their organization is deleted, is now done when the head goes (the organization's
 * deletion cascades to it), once per statement.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE change_feed DROP CONSTRAINT change_feed_organization_id_foreign');
  await knex.raw(`
    CREATE FUNCTION change_feed_follow_heads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM change_feed c USING gone_heads g WHERE c.organization_id = g.organization_id;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER feed_heads_take_entries AFTER DELETE ON feed_heads
      REFERENCING OLD TABLE AS gone_heads FOR EACH STATEMENT EXECUTE FUNCTION change_feed_follow_heads()`);
  await knex.raw(
    "COMMENT ON COLUMN change_feed.organization_id IS 'The organization whose change this is; its feed_heads row (which references the organization) exists whenever an entry does, and its deletion deletes the entries.'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER feed_heads_take_entries ON feed_heads');
  await knex.raw('DROP FUNCTION change_feed_follow_heads()');
  await knex.raw(
    'ALTER TABLE change_feed ADD CONSTRAINT change_feed_organization_id_foreign FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE',
  );
  await knex.raw("COMMENT ON COLUMN change_feed.organization_id IS 'Owner; positions are per organization.'");
}
