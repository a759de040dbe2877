import type { Knex } from 'knex';

/**
 * Every live object's current state, for reconciliation digests (GET /reconciliation/{resource})
 * and for the writes that need an object's state before their change (changedFields, previous).
 *
 * A row is written by the feed's append statement (src/feed/append.ts), in the same statement and
 * transaction as the object's entry: `position` is that entry's position and `data` its `data`, so
 * in any snapshot the rows describe exactly the state after every entry up to the organization's
 * head. Objects that exist without such an entry (created before this migration, by the admin
 * CLI's demo data, by the benchmark's loader) get their row from a backfill
 * (src/resources/reconciliation/backfill.ts); `feed_object_backfills` lists the organizations' resources still owed one.
 *
 * The primary key's index carries `digest` (INCLUDE), so a set digest over any id range (a prefix
 * of the hex id: uuid order is the byte order of its lowercase hex text) is an index-only scan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE feed_objects (
      organization_id uuid NOT NULL,
      resource text NOT NULL,
      id uuid NOT NULL,
      position bigint NOT NULL,
      digest char(64) NOT NULL,
      data json NOT NULL,
      CONSTRAINT feed_objects_pkey PRIMARY KEY (organization_id, resource, id) INCLUDE (digest)
    )`);
  await knex.raw(
    `COMMENT ON TABLE feed_objects IS 'Each live object''s current state (as its single read returns it) and digest, written with its feed entry; deleted objects have no row.'`,
  );
  for (const [column, comment] of [
    ['organization_id', 'The organization the object belongs to; its feed_heads row exists whenever a state row does, and its deletion deletes them.'],
    ['resource', 'The feed resource name of the object (vendor, item, ...), as GET /changes names it.'],
    ['id', "The object's id."],
    ['position', 'Feed position of the entry that last changed the object (for a backfilled row: the head when it was backfilled).'],
    ['digest', 'Lowercase hex SHA-256 of the RFC 8785 serialization of data (src/db/object-digest.ts).'],
    ['data', 'The object exactly as its single read returns it, stored as its RFC 8785 (canonical) JSON text.'],
  ]) {
    await knex.raw(`COMMENT ON COLUMN feed_objects.${column} IS '${comment.replace(/'/g, "''")}'`);
  }
  // No foreign key (checked row by row, 1000 times for a 1000-element batch): like the feed's entries
  // (20261124100000), the rows go when their organization's head goes, and a row is only written
  // with that head's row locked (append.ts, backfill.ts), so the head exists.
  await knex.raw(`
    CREATE FUNCTION feed_objects_follow_heads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM feed_objects f USING gone_heads g WHERE f.organization_id = g.organization_id;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER feed_heads_take_objects AFTER DELETE ON feed_heads
      REFERENCING OLD TABLE AS gone_heads FOR EACH STATEMENT EXECUTE FUNCTION feed_objects_follow_heads()`);
  // Spare room on each page lets an update stay on its page (HOT is impossible, digest is indexed, but the
  // heap write is cheaper).
  await knex.raw('ALTER TABLE feed_objects SET (fillfactor = 90)');

  await knex.raw(`
    CREATE TABLE feed_object_backfills (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource text NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (organization_id, resource)
    )`);
  await knex.raw(
    `COMMENT ON TABLE feed_object_backfills IS 'Resources of an organization whose objects may lack a (current) feed_objects row: a backfill rebuilds them before their digests are answered.'`,
  );
  await knex.raw(`COMMENT ON COLUMN feed_object_backfills.organization_id IS 'The organization owed the backfill.'`);
  await knex.raw(`COMMENT ON COLUMN feed_object_backfills.resource IS 'The feed resource name owed the backfill.'`);
  await knex.raw(
    `COMMENT ON COLUMN feed_object_backfills.requested_at IS 'When it was last asked for: a backfill removes the row only when nobody asked again while it ran.'`,
  );
  // Every organization that exists now has objects without a state row: all of its resources ('*') are owed one.
  await knex.raw(`INSERT INTO feed_object_backfills (organization_id, resource) SELECT o.id, '*' FROM organizations o`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE feed_object_backfills');
  await knex.raw('DROP TRIGGER feed_heads_take_objects ON feed_heads');
  await knex.raw('DROP FUNCTION feed_objects_follow_heads()');
  await knex.raw('DROP TABLE feed_objects');
}
