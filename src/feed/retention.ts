import type { Queryable } from '../db/knex';

/**
 * Deletes each organization's entries older than `days`, always a prefix of its positions (those
 * before its first entry that is not that old), and records the last position deleted in
 * feed_heads.pruned_through in the same statement, so GET /changes answers a cursor before it with
 * an exact 410. The cut is found through the primary key, reading the entries it deletes and one
 * more (change_feed has no index by age: migration 20261127010000). Returns the
 * number of entries deleted. With `stopping` (a worker stopping), ends between organizations once
 * it holds: the next run, on any instance, prunes the rest.
 */
export async function pruneChangeFeed(db: Queryable, days: number, stopping: () => boolean = () => false): Promise<number> {
  const orgs: { organization_id: string }[] = await db('feed_heads').select('organization_id');
  let deleted = 0;
  for (const { organization_id: orgId } of orgs) {
    if (stopping()) break;
    const { rows } = await db.raw(
      `WITH kept AS (
         SELECT position FROM change_feed
          WHERE organization_id = ? AND occurred_at >= now() - make_interval(days => ?)
          ORDER BY position LIMIT 1
       ), cut AS (
         SELECT CASE WHEN EXISTS (SELECT 1 FROM kept) THEN (SELECT position FROM kept) - 1
                     ELSE (SELECT max(position) FROM change_feed WHERE organization_id = ?) END AS position
       ), gone AS (
         DELETE FROM change_feed c USING cut WHERE c.organization_id = ? AND c.position <= cut.position RETURNING c.position
       )
       UPDATE feed_heads h SET pruned_through = cut.position
         FROM cut WHERE h.organization_id = ? AND cut.position > h.pruned_through
       RETURNING (SELECT count(*) FROM gone) AS n`,
      [orgId, days, orgId, orgId, orgId],
    );
    deleted += Number(rows[0]?.n ?? 0);
  }
  return deleted;
}
