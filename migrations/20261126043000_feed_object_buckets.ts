import type { Knex } from 'knex';

/**
 * Cached set digests of the sixteen top-level buckets of each resource (and of the whole
 * resource), so GET /reconciliation/{resource} never rebuilds the lines of a bucket nothing
 * changed in (src/resources/reconciliation/bucket-cache.ts).
 *
 * `feed_object_bucket_versions` counts the changes to each bucket's object states: every
 * statement that writes or removes a feed_objects row (the feed's append, the backfill) bumps the
 * version of the buckets it touched, in the same transaction. Updates of one row serialize, so in
 * any snapshot a bucket's version says exactly which of its changes are visible.
 *
 * `feed_object_bucket_lines` holds, per bucket, its lines (`<id>:<digest>\n` in id order), count and
 * digest as a reader computed them, with the version it saw. A cached row is current in a snapshot
 * exactly when the bucket's version there is the one stored (the whole resource's row, prefix '':
 * the sum of its buckets' versions, each of which only grows). Writers never touch it (they never
 * wait for a reader); it is UNLOGGED, a crash empties it and the next request fills it again.
 *
 * `feed_object_refreshes`: targeted backfills. A change of an object that other objects' reads
 * show (a tax code the items show) owed every object of those resources a rebuild
 * (feed_object_backfills, 190,000 items for one tax code); now it owes one only to the objects
 * that show the changed ones, named by the changed objects' ids (src/resources/reconciliation/dependents.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE feed_object_bucket_versions (
      organization_id uuid NOT NULL,
      resource text NOT NULL,
      prefix text NOT NULL,
      version bigint NOT NULL,
      PRIMARY KEY (organization_id, resource, prefix)
    )`);
  await knex.raw(
    `COMMENT ON TABLE feed_object_bucket_versions IS 'How many times the object states (feed_objects) of a resource''s top-level bucket (ids starting with prefix) have changed.'`,
  );
  await knex.raw(`
    CREATE UNLOGGED TABLE feed_object_bucket_lines (
      organization_id uuid NOT NULL,
      resource text NOT NULL,
      prefix text NOT NULL,
      version bigint NOT NULL,
      count integer NOT NULL,
      digest char(64) NOT NULL,
      lines text,
      PRIMARY KEY (organization_id, resource, prefix)
    )`);
  // The lines are random hex: compressing them gains nothing and costs every write and read.
  await knex.raw('ALTER TABLE feed_object_bucket_lines ALTER COLUMN lines SET STORAGE EXTERNAL');
  await knex.raw(
    `COMMENT ON TABLE feed_object_bucket_lines IS 'Set digests of top-level buckets (and of whole resources) as last computed, current while the bucket versions are those stored; a cache.'`,
  );
  await knex.raw(`
    CREATE TABLE feed_object_refreshes (
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      resource text NOT NULL,
      via text NOT NULL,
      ids uuid[] NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (organization_id, resource, via)
    )`);
  await knex.raw(
    `COMMENT ON TABLE feed_object_refreshes IS 'Objects whose states are owed a rebuild because objects their reads show changed: those of resource that show the via objects ids.'`,
  );
  const comments: [string, string, string][] = [
    ['feed_object_refreshes', 'organization_id', 'The organization owed the rebuild.'],
    ['feed_object_refreshes', 'resource', 'The feed resource name of the objects to rebuild (item, ...).'],
    ['feed_object_refreshes', 'via', 'The feed resource name of the changed objects they show (tax_code, ...).'],
    ['feed_object_refreshes', 'ids', 'The changed objects (distinct): every object of resource that shows one of them is rebuilt.'],
    ['feed_object_refreshes', 'requested_at', 'When it was last asked for: the rebuild removes the row only when nobody asked again while it ran.'],
    ['feed_object_bucket_versions', 'organization_id', 'The organization whose objects these are.'],
    ['feed_object_bucket_versions', 'resource', 'The feed resource name (item, vendor, ...).'],
    ['feed_object_bucket_versions', 'prefix', 'The first hex digit of the ids of the bucket.'],
    ['feed_object_bucket_versions', 'version', 'Bumped by every transaction that writes or removes an object state of the bucket.'],
    ['feed_object_bucket_lines', 'organization_id', 'The organization whose objects these are.'],
    ['feed_object_bucket_lines', 'resource', 'The feed resource name (item, vendor, ...).'],
    ['feed_object_bucket_lines', 'prefix', "The first hex digit of the ids of the bucket; '' for the whole resource."],
    ['feed_object_bucket_lines', 'version', "The bucket's version the row was computed at (for '': the sum of the buckets' versions)."],
    ['feed_object_bucket_lines', 'count', 'How many objects the bucket had.'],
    ['feed_object_bucket_lines', 'digest', 'The set digest: SHA-256 of lines (hex).'],
    [
      'feed_object_bucket_lines',
      'lines',
      "The bucket's lines, <id>:<digest> and a newline per object in id order; null for the whole resource (the buckets' lines in order).",
    ],
  ];
  for (const [table, column, comment] of comments) {
    await knex.raw(`COMMENT ON COLUMN ${table}.${column} IS '${comment.replace(/'/g, "''")}'`);
  }
  // Like feed_objects (20261126000000): the rows go with their organization's feed head.
  await knex.raw(`
    CREATE FUNCTION feed_object_buckets_follow_heads() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM feed_object_bucket_versions v USING gone_heads g WHERE v.organization_id = g.organization_id;
      DELETE FROM feed_object_bucket_lines l USING gone_heads g WHERE l.organization_id = g.organization_id;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER feed_heads_take_object_buckets AFTER DELETE ON feed_heads
      REFERENCING OLD TABLE AS gone_heads FOR EACH STATEMENT EXECUTE FUNCTION feed_object_buckets_follow_heads()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER feed_heads_take_object_buckets ON feed_heads');
  await knex.raw('DROP FUNCTION feed_object_buckets_follow_heads()');
  await knex.raw('DROP TABLE feed_object_refreshes');
  await knex.raw('DROP TABLE feed_object_bucket_lines');
  await knex.raw('DROP TABLE feed_object_bucket_versions');
}
