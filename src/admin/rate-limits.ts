import type { Queryable } from '../db/knex';
import { setOrganizationSettings } from './org-settings';

/**
 * An organization's own rate limits (`admin org setting --rate-limit-burst/--rate-limit-hourly`):
 * a number sets it, null returns it to the default (RATE_LIMIT_BURST / RATE_LIMIT_HOURLY), and an
 * omitted one is left as it is. Running instances pick the change up within 10 seconds. Answers
 * the organization's settings after the change.
 */
export async function setRateLimits(db: Queryable, orgId: string, limits: { burst?: number | null; hourly?: number | null }) {
  return setOrganizationSettings(db, orgId, { rateLimitBurst: limits.burst, rateLimitHourly: limits.hourly });
}
