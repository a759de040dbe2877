import type { Queryable } from '../db/knex';
import { isUuid } from '../db/columns';
import { ProvisionError } from './provision';

/**
 * An organization's own rate limits (`admin org setting --rate-limit-burst/--rate-limit-hourly`):
 * a number sets it, null returns it to the default (RATE_LIMIT_BURST / RATE_LIMIT_HOURLY), and an
 * omitted one is left as it is. Running instances pick the change up within 10 seconds.
 */
export async function setRateLimits(db: Queryable, orgId: string, limits: { burst?: number | null; hourly?: number | null }) {
  const changes: Record<string, number | null> = {};
  if (limits.burst !== undefined) changes.rate_limit_burst = limits.burst;
  if (limits.hourly !== undefined) changes.rate_limit_hourly = limits.hourly;
  const rows = isUuid(orgId)
    ? await db('organizations')
        .where({ id: orgId })
        .update({ ...changes, updated_at: db.fn.now() })
        .returning(['rate_limit_burst', 'rate_limit_hourly'])
    : [];
  if (!rows.length) throw new ProvisionError(`organization ${orgId} does not exist`);
  const row = rows[0] as { rate_limit_burst: number | null; rate_limit_hourly: number | null };
  return { organization: { id: orgId }, rateLimits: { burst: row.rate_limit_burst ?? 'default', hourly: row.rate_limit_hourly ?? 'default' } };
}
