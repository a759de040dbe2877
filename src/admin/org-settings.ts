import type { Queryable } from '../db/knex';
import { isUuid } from '../db/columns';
import { ProvisionError } from './provision';

/**
 * `admin org setting`: the settings a support request switches, changed together in one statement.
 * A value sets a setting; null returns a rate limit to the operator's default (RATE_LIMIT_BURST /
 * RATE_LIMIT_HOURLY); undefined leaves it as it is. Running instances pick a change up within 10
 * seconds.
 */
export interface OrganizationSettingChanges {
  /** POST /jobs/{jobIdOrCode}/nextPurchaseOrderNumber. */
  poCounter?: boolean;
  rateLimitBurst?: number | null;
  rateLimitHourly?: number | null;
  /** Webhook receivers on this machine (localhost, 127.0.0.1, ::1), also over plain http: for development. */
  loopbackWebhooks?: boolean;
}

/** Every setting of the organization after the change, in the CLI's own words (`on`/`off`, `default`). */
export interface OrganizationSettings {
  organization: { id: string };
  poCounter: 'on' | 'off';
  rateLimits: { burst: number | 'default'; hourly: number | 'default' };
  loopbackWebhooks: 'on' | 'off';
}

export async function setOrganizationSettings(db: Queryable, orgId: string, changes: OrganizationSettingChanges): Promise<OrganizationSettings> {
  const set: Record<string, boolean | number | null> = {};
  if (changes.poCounter !== undefined) set.po_counter_enabled = changes.poCounter;
  if (changes.rateLimitBurst !== undefined) set.rate_limit_burst = changes.rateLimitBurst;
  if (changes.rateLimitHourly !== undefined) set.rate_limit_hourly = changes.rateLimitHourly;
  if (changes.loopbackWebhooks !== undefined) set.loopback_webhooks = changes.loopbackWebhooks;
  const rows = isUuid(orgId)
    ? await db('organizations')
        .where({ id: orgId })
        .update({ ...set, updated_at: db.fn.now() })
        .returning(['po_counter_enabled', 'rate_limit_burst', 'rate_limit_hourly', 'loopback_webhooks'])
    : [];
  if (!rows.length) throw new ProvisionError(`organization ${orgId} does not exist`);
  const row = rows[0] as { po_counter_enabled: boolean; rate_limit_burst: number | null; rate_limit_hourly: number | null; loopback_webhooks: boolean };
  return {
    organization: { id: orgId },
    poCounter: row.po_counter_enabled ? 'on' : 'off',
    rateLimits: { burst: row.rate_limit_burst ?? 'default', hourly: row.rate_limit_hourly ?? 'default' },
    loopbackWebhooks: row.loopback_webhooks ? 'on' : 'off',
  };
}
