import type { Queryable } from '../db/knex';

/**
 * Deletes each organization's entries older than `days`, always a prefix of its positions (up to
 * the newest old entry), and records the last position deleted in feed_heads.pruned_through in
 * the same statement, so GET /changes answers a cursor before it with an exact 410. Returns the
 * number of entries deleted. With `stopping` (a worker stopping), ends between organizations once
 * it holds: the next run, on any instance, prunes the rest.
 */
export async function pruneChangeFeed(db: Queryable, days: number, stopping: () => boolean = () => false): Promise<number> {
  const orgs: { organization_id: string }[] = await db('feed_heads').select('organization_id');
  let deleted = 0;
  for (const { organization_id: orgId } of orgs) {
    if (stopping()) break;
    const { rows } = await db.raw(
      `WITH cut AS (
         SELECT max(position) AS position FROM change_feed
          WHERE organization_id = ? AND occurred_at < now() - make_interval(days => ?)
       ), gone AS (
         DELETE FROM change_feed c USING cut WHERE c.organization_id = ? AND c.position <= cut.position RETURNING c.position
       )
       UPDATE feed_heads h SET pruned_through = GREATEST(h.pruned_through, cut.position)
         FROM cut WHERE h.organization_id = ? AND cut.position IS NOT NULL
       RETURNING (SELECT count(*) FROM gone) AS n`,
      [orgId, days, orgId, orgId],
    );
    deleted += Number(rows[0]?.n ?? 0);
  }
  return deleted;
}
