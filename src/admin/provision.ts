import { SCOPES, type Scope } from '../auth/scopes';
import type { Db, Queryable } from '../db/knex';
import { isUuid } from '../db/columns';
import { hashSecret, newPublicId, newSecret } from '../auth/secrets';
import { notifyRevocation, revokedLocally } from '../auth/revocation';
import type { Knex } from 'knex';
import { readObjectTexts } from '../db/object-reads';
import { appendChanges, NOT_CAPTURED } from '../feed/append';
import { users } from '../resources/users/queries';

/**
 * Provisioning: organizations, their OAuth clients and API keys. Used by the admin CLI, the demo
 * bootstrap and the tests (one code path). Secrets are returned once and stored only as hashes.
 */
export class ProvisionError extends Error {}

export interface ProvisionedOrganization {
  organization: { id: string; name: string };
  user: { id: string; email: string };
  apiKey: string;
  oauthClient: { clientId: string; clientSecret: string };
}

function namesFromEmail(email: string): { first: string; last: string } {
  const local = email.split('@')[0].replace(/[0-9]+/g, '');
  const parts = local.split(/[._-]+/).filter(Boolean);
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  return { first: cap(parts[0] ?? 'Admin'), last: cap(parts.slice(1).join(' ') || 'User') };
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createOrganization(db: Queryable, input: { name: string; adminEmail: string }): Promise<ProvisionedOrganization> {
  const name = input.name.trim();
  if (!name) throw new ProvisionError('--name must not be empty');
  if (!EMAIL_RE.test(input.adminEmail)) throw new ProvisionError(`--admin-email ${input.adminEmail} is not an e-mail address`);
  const run = async (tx: Queryable) => {
    // Its user enters the feed below: not captured again (src/feed/append.ts NOT_CAPTURED).
    await tx.raw(NOT_CAPTURED);
    const [org] = await tx('organizations').insert({ name }).returning(['id', 'name']);
    const { first, last } = namesFromEmail(input.adminEmail);
    const [user] = await tx('users')
      .insert({
        organization_id: org.id,
        email: input.adminEmail,
        first_name: first,
        last_name: last,
        display_name: `${first} ${last}`,
        role: 'Procurement',
        admin: true,
      })
      .returning(['id', 'email']);
    const apiKey = await issueApiKey(tx, org.id, user.id);
    const oauthClient = await insertClient(tx, org.id, user.id);
    // Its first user is a `user.created` entry (origin `system`) with the user as read; the last statement (appendChanges).
    const [read] = await readObjectTexts(tx, users, org.id, (q, id) => q.where(id, user.id));
    await appendChanges(tx as Knex.Transaction, org.id, [{ type: 'user.created', resource: 'user', id: user.id, data: JSON.parse(read.json) }]);
    return { organization: { id: org.id, name: org.name }, user: { id: user.id, email: user.email }, apiKey, oauthClient };
  };
  return inTransaction(db, run);
}

async function requireOrg(db: Queryable, orgId: string): Promise<void> {
  if (!isUuid(orgId) || !(await db('organizations').where({ id: orgId }).first('id'))) {
    throw new ProvisionError(`organization ${orgId} does not exist`);
  }
}

/** The user a new credential acts as: the organization's first admin. */
async function credentialUser(db: Queryable, orgId: string): Promise<string> {
  const user = await db('users')
    .where({ organization_id: orgId })
    .orderBy([{ column: 'admin', order: 'desc' }, 'created_at', 'id'])
    .first('id');
  if (!user) throw new ProvisionError(`organization ${orgId} has no user`);
  return user.id;
}

/**
 * A credential's own rate limits (requests per second, per hour), held to in addition to its
 * organization's (src/http/rate-limit.ts); an omitted or null one: only the organization's applies.
 */
export interface CredentialLimits {
  burst?: number | null;
  hourly?: number | null;
}

/** The columns of a credential's own limits, and how `admin` prints them. */
const limitColumns = (limits: CredentialLimits) => ({ rate_limit_burst: limits.burst ?? null, rate_limit_hourly: limits.hourly ?? null });
export const shownLimits = (row: { rate_limit_burst: number | null; rate_limit_hourly: number | null }) => ({
  burst: row.rate_limit_burst ?? 'organization',
  hourly: row.rate_limit_hourly ?? 'organization',
});

async function insertClient(db: Queryable, orgId: string, userId: string, scopes: Scope[] = [...SCOPES], limits: CredentialLimits = {}) {
  const clientId = newPublicId('cl');
  const clientSecret = newSecret('cs');
  await db('oauth_clients').insert({
    organization_id: orgId,
    user_id: userId,
    client_id: clientId,
    secret_hash: hashSecret(clientSecret),
    scopes,
    ...limitColumns(limits),
  });
  return { clientId, clientSecret };
}

async function issueApiKey(db: Queryable, orgId: string, userId: string, scopes: Scope[] = [...SCOPES], limits: CredentialLimits = {}): Promise<string> {
  const apiKey = newSecret('pk');
  // Revoke-then-insert in one transaction: the previous key stops working at once.
  await db('api_keys').where({ organization_id: orgId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  await db('api_keys').insert({ organization_id: orgId, user_id: userId, key_hash: hashSecret(apiKey), scopes, ...limitColumns(limits) });
  return apiKey;
}

/** A new OAuth client; `scopes` narrows what its tokens may do (default: read and write), `limits` how often. */
export async function createClient(db: Queryable, orgId: string, scopes?: Scope[], limits: CredentialLimits = {}) {
  await requireOrg(db, orgId);
  const granted = scopes ?? [...SCOPES];
  return {
    ...(await insertClient(db, orgId, await credentialUser(db, orgId), granted, limits)),
    scopes: granted,
    rateLimits: shownLimits(limitColumns(limits)),
  };
}

export async function deleteClient(db: Queryable, clientId: string): Promise<{ clientId: string; deleted: true }> {
  await inTransaction(db, async (tx) => {
    const n = await tx('oauth_clients').where({ client_id: clientId }).whereNull('deleted_at').update({ deleted_at: tx.fn.now() });
    if (!n) throw new ProvisionError(`OAuth client ${clientId} does not exist`);
    await notifyRevocation(tx, `client ${clientId}`);
  });
  revokedLocally(`client ${clientId}`);
  return { clientId, deleted: true };
}

export async function rotateApiKey(db: Queryable, orgId: string, scopes: Scope[] = [...SCOPES], limits: CredentialLimits = {}) {
  await requireOrg(db, orgId);
  const userId = await credentialUser(db, orgId);
  const result = await inTransaction(db, async (tx) => {
    const issued = { apiKey: await issueApiKey(tx, orgId, userId, scopes, limits), scopes, rateLimits: shownLimits(limitColumns(limits)) };
    await notifyRevocation(tx, `api keys of ${orgId}`);
    return issued;
  });
  revokedLocally(`api keys of ${orgId}`);
  return result;
}

/** Runs `run` in `db` when it is a transaction already, else in a new one. */
function inTransaction<T>(db: Queryable, run: (tx: Queryable) => Promise<T>): Promise<T> {
  return 'isTransaction' in db && db.isTransaction ? run(db) : (db as Db).transaction(run);
}

/** Settings switched on by a support request. */
export async function setOrganizationSetting(db: Queryable, orgId: string, setting: 'po-counter', enabled: boolean) {
  await requireOrg(db, orgId);
  await db('organizations').where({ id: orgId }).update({ po_counter_enabled: enabled, updated_at: db.fn.now() });
  return { organization: { id: orgId }, setting, enabled };
}
