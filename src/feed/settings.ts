import type { Queryable } from '../db/knex';

/**
 * The feed's commit-order argument (append.ts) holds on any PostgreSQL with its defaults. Two
 * settings would break it, so the service refuses to start on them, naming the setting:
 * - `synchronous_commit = off`: a crash can lose commits a reader has already seen, and their
 *   positions would be handed out again to other changes, which that reader would then skip.
 * - `default_transaction_isolation` above `read committed`: concurrent writers of one organization
 *   would fail with serialization errors on the feed head instead of waiting their turn.
 */
export async function checkFeedSettings(db: Queryable): Promise<void> {
  const { rows } = await db.raw(`SELECT current_setting('synchronous_commit') AS sync, current_setting('default_transaction_isolation') AS isolation`);
  const { sync, isolation } = rows[0] as { sync: string; isolation: string };
  if (sync === 'off') {
    throw new Error(
      'PostgreSQL setting synchronous_commit is off: the change feed needs it on (the default) so a crash cannot lose commits a reader already saw. Set it with `ALTER DATABASE <db> SET synchronous_commit = on` (or in postgresql.conf).',
    );
  }
  if (isolation !== 'read committed') {
    throw new Error(
      `PostgreSQL setting default_transaction_isolation is ${isolation}: the service's write transactions need read committed (the default). Set it with \`ALTER DATABASE <db> SET default_transaction_isolation = 'read committed'\`.`,
    );
  }
}
