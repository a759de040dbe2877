import type { Knex } from 'knex';
import { isUuid } from '../db/columns';
import { shownLimits } from './provision';

/** Organizations for `org list`: id, name and creation time, oldest first. */
export async function listOrganizations(db: Knex): Promise<{ id: string; name: string; createdAt: string }[]> {
  const rows = await db('organizations')
    .select('id', 'name', 'created_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: new Date(r.created_at).toISOString() }));
}

/**
 * One organization for `org show`: its settings and its credentials' ids (API keys, OAuth
 * clients) with their own rate limits (`organization`: none, only the organization's apply),
 * never a secret or a hash of one. Undefined when there is no such organization.
 */
export async function showOrganization(db: Knex, id: string) {
  const org = isUuid(id) ? await db('organizations').where({ id }).first() : undefined;
  if (!org) return undefined;
  const [apiKeys, oauthClients, users] = await Promise.all([
    db('api_keys')
      .where({ organization_id: id })
      .select('id', 'created_at', 'revoked_at', 'rate_limit_burst', 'rate_limit_hourly', 'api_version')
      .orderBy('created_at'),
    db('oauth_clients')
      .where({ organization_id: id })
      .select('client_id', 'created_at', 'deleted_at', 'rate_limit_burst', 'rate_limit_hourly', 'api_version')
      .orderBy('created_at'),
    db('users').where({ organization_id: id }).count<{ count: string }[]>({ count: '*' }),
  ]);
  return {
    organization: { id: org.id, name: org.name, createdAt: new Date(org.created_at).toISOString(), demoData: org.demo_loaded_at !== null },
    apiKeys: apiKeys.map((k) => ({
      id: k.id,
      createdAt: new Date(k.created_at).toISOString(),
      revoked: k.revoked_at !== null,
      rateLimits: shownLimits(k),
      apiVersion: k.api_version,
    })),
    oauthClients: oauthClients.map((c) => ({
      clientId: c.client_id,
      createdAt: new Date(c.created_at).toISOString(),
      deleted: c.deleted_at !== null,
      rateLimits: shownLimits(c),
      apiVersion: c.api_version,
    })),
    users: Number(users[0].count),
  };
}

/** The organization holding the demo data (the first one loaded), if any. */
export async function demoOrganizationId(db: Knex): Promise<string | undefined> {
  const row = await db('organizations').whereNotNull('demo_loaded_at').orderBy('demo_loaded_at').first('id');
  return row?.id;
}
