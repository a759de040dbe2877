import type { Queryable } from '../../db/knex';

/**
 * Marks resources of an organization as owed a backfill of their object states (backfill.ts):
 * whoever writes objects without the feed calls it after the write (in the same transaction when
 * it has one). `*` (the default) stands for every resource. Kept apart from the backfill itself,
 * which loads every resource's read definitions, so provisioning and the admin CLI stay light.
 */
export async function requestBackfill(db: Queryable, organizationId: string, resources: readonly string[] = ['*']): Promise<void> {
  await db.raw(
    `INSERT INTO feed_object_backfills (organization_id, resource)
     SELECT ?, r FROM unnest(?::text[]) AS r
     ON CONFLICT (organization_id, resource) DO UPDATE SET requested_at = clock_timestamp()`,
    [organizationId, [...resources]],
  );
}
