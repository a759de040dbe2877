import type { Db } from '../db/knex';
import { isUuid } from '../db/columns';
import { notifyRevocation, revokedLocally } from '../auth/revocation';
import { isServed, servedVersions, versionNamed } from '../versions/registry';
import { ProvisionError } from './provision';

/**
 * Moves the API version a credential is pinned to (`api-key version`, `client version`): its
 * requests without `Api-Version` run at it from the next one. Every instance's credential cache
 * forgets the credential (the revocation notice), so none keeps running it at the old pin.
 */
export async function pinCredential(db: Db, which: { apiKey: string } | { client: string }, version: string) {
  if (!isServed(versionNamed(version)))
    throw new ProvisionError(
      `${version} is not a supported API version (${servedVersions()
        .map((v) => v.version)
        .join(', ')})`,
    );
  const [table, column, id] = 'apiKey' in which ? (['api_keys', 'id', which.apiKey] as const) : (['oauth_clients', 'client_id', which.client] as const);
  if (column === 'id' && !isUuid(id)) throw new ProvisionError(`API key ${id} does not exist`);
  const what = `${column === 'id' ? 'api key' : 'client'} ${id}`;
  await db.transaction(async (tx) => {
    const n = await tx(table)
      .where({ [column]: id })
      .update({ api_version: version });
    if (!n) throw new ProvisionError(`${column === 'id' ? 'API key' : 'OAuth client'} ${id} does not exist`);
    await notifyRevocation(tx, `pin of ${what}`);
  });
  revokedLocally(`pin of ${what}`);
  return { [column === 'id' ? 'apiKey' : 'clientId']: id, apiVersion: version };
}
