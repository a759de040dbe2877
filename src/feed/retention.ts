import type { Queryable } from '../db/knex';
import { componentLog, type ComponentLog } from '../ops/log';

const DEFAULT_DAYS = 30;
const HOUR = 3600_000;

/** CHANGE_FEED_RETENTION_DAYS (default 30): entries are kept at least this many days. */
export function retentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CHANGE_FEED_RETENTION_DAYS;
  if (raw === undefined || raw === '') return DEFAULT_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1) throw new Error(`CHANGE_FEED_RETENTION_DAYS must be a whole number of days (at least 1), not ${raw}`);
  return days;
}

/**
 * Deletes each organization's entries older than `days`, always a prefix of its positions (up to
 * the newest old entry), and records the last position deleted in feed_heads.pruned_through in
 * the same statement, so GET /changes answers a cursor before it with an exact 410. Returns the
 * number of entries deleted.
 */
export async function pruneChangeFeed(db: Queryable, days: number): Promise<number> {
  const orgs: { organization_id: string }[] = await db('feed_heads').select('organization_id');
  let deleted = 0;
  for (const { organization_id: orgId } of orgs) {
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

/** Prunes at start and every hour (the timer does not keep the process alive); returns a stop function. */
export function startFeedRetention(db: Queryable, days = retentionDays(), log: ComponentLog = componentLog('change-feed-retention')): () => void {
  const run = () => void pruneChangeFeed(db, days).catch((err) => log.error('pruning failed', err));
  run();
  const timer = setInterval(run, HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
