import type { Db, Queryable } from '../../db/knex';
import { isUuid } from '../../db/columns';
import { onFreshConnections } from '../../db/retry';
import type { Schema } from '../../http/handler';
import { newSecret } from '../../webhooks/signing';
import { encodeCursor } from '../../feed/cursor';
import type { SendResult } from '../../webhooks/send';
import { shownAtNewest } from '../../versions/registry';

/**
 * Every statement that writes `webhook_endpoints` (and its delivery log, `webhook_deliveries`):
 * the operations' (create, update, delete, rotate, replay, the doorbell) and the deliverer's
 * (lease, progress, give-up, src/background/deliver.ts, which keeps the loop), on one typed row.
 */

/** A stored endpoint (table `webhook_endpoints`, migration 20261124040000 and those after it). */
export interface WebhookEndpointRow {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  /** Change types as the endpoint's operations checked them (src/feed/change-type-filter.ts). */
  types: WebhookEndpoint['types'];
  /** Field names as the newest version names them (src/versions/registry.ts changedFieldsUpAt), whatever the version they were given at. */
  fields: string[] | null;
  exclude_origins: string[] | null;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_by: string | null;
  /** A bigint: pg gives it as text. */
  delivered_position: string;
  generation: number;
  head_attempts: number;
  failing_since: Date | null;
  next_attempt_at: Date | null;
  last_error: string | null;
  last_success_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  /** API version of its payloads (migration 20261206010100). */
  api_version: string;
  /** A bigint feed position (as text), after which api_version applies; entries up to it go out at previous_api_version. */
  api_version_after: string | null;
  previous_api_version: string | null;
  created_at: Date;
  updated_at: Date;
}

type WebhookEndpoint = Schema<'WebhookEndpoint'>;
type WebhookDelivery = Schema<'WebhookDelivery'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The stored row as the API shows it at the newest version (never the secrets); an older version renames `fields` on the way out (x-changed-fields). */
export function endpointJson(r: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    types: r.types ?? null,
    fields: r.fields ? shownAtNewest(r.fields) : null,
    excludeOrigins: r.exclude_origins ?? null,
    enabled: r.enabled,
    status: r.enabled ? (r.failing_since ? 'retrying' : 'active') : r.disabled_reason ? 'failing' : 'disabled',
    failingSince: iso(r.failing_since),
    nextAttemptAt: iso(r.next_attempt_at),
    lastError: r.last_error ?? null,
    lastSuccessAt: iso(r.last_success_at),
    disabledAt: iso(r.disabled_at),
    disabledReason: r.disabled_reason ?? null,
    previousSecretExpiresAt: r.previous_secret ? iso(r.previous_secret_expires_at) : null,
    apiVersion: r.api_version,
    apiVersionAfter: r.api_version_after === null ? null : encodeCursor(r.organization_id, Number(r.api_version_after)),
    previousApiVersion: r.previous_api_version ?? null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export async function listEndpoints(db: Queryable, orgId: string, limit: number, offset: number): Promise<WebhookEndpoint[]> {
  const rows: WebhookEndpointRow[] = await db('webhook_endpoints')
    .where('organization_id', orgId)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit)
    .offset(offset);
  return rows.map(endpointJson);
}

/** The stored row (with secrets), or undefined when it is not the organization's. */
export async function endpointRow(db: Queryable, orgId: string, id: string, lock = false): Promise<WebhookEndpointRow | undefined> {
  if (!isUuid(id)) return undefined;
  const q = db('webhook_endpoints').where({ organization_id: orgId, id }).first();
  return lock ? q.forUpdate() : q;
}

export interface EndpointInput {
  url: string;
  description?: string;
  types?: string[] | null;
  fields?: string[] | null;
  /** Credential ids (`self` already resolved to the caller's). */
  excludeOrigins?: string[] | null;
  enabled?: boolean;
  /** The API version of its payloads (a served one). */
  apiVersion?: string;
  /** With apiVersion on an update: the feed position after which it applies (default: the feed's head). */
  apiVersionAfter?: number;
}

/** A new endpoint, starting after the organization's last committed change. */
export async function createEndpoint(
  trx: Queryable,
  orgId: string,
  userId: string,
  input: EndpointInput,
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  const secret = newSecret();
  const [row] = await trx('webhook_endpoints')
    .insert({
      organization_id: orgId,
      url: input.url,
      description: input.description ?? '',
      types: input.types ?? null,
      fields: input.fields ?? null,
      exclude_origins: input.excludeOrigins ?? null,
      enabled: input.enabled ?? true,
      api_version: input.apiVersion,
      secret,
      created_by: userId,
      delivered_position: trx.raw('coalesce((SELECT position FROM feed_heads WHERE organization_id = ?), 0)', [orgId]),
    })
    .returning('*');
  return { row, secret };
}

/**
 * Applies changes; every change bumps `generation`, so a worker delivering with the old settings
 * stops and the next run reads the new ones. Enabling clears the failure state (a `failing`
 * endpoint resumes with the entry that failed) and rings the doorbell.
 */
export async function updateEndpoint(trx: Queryable, orgId: string, id: string, changes: Partial<EndpointInput>): Promise<WebhookEndpointRow | undefined> {
  const current = await endpointRow(trx, orgId, id, true);
  if (!current) return undefined;
  const set: Record<string, unknown> = { generation: trx.raw('generation + 1'), updated_at: trx.fn.now() };
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.types !== undefined) set.types = changes.types;
  if (changes.fields !== undefined) set.fields = changes.fields;
  if (changes.excludeOrigins !== undefined) set.exclude_origins = changes.excludeOrigins;
  if (changes.enabled !== undefined) set.enabled = changes.enabled;
  if (changes.apiVersion !== undefined && changes.apiVersion !== current.api_version) {
    // Entries up to the cursor keep the version in force until now.
    set.previous_api_version = current.api_version;
    set.api_version = changes.apiVersion;
    set.api_version_after = changes.apiVersionAfter ?? trx.raw('coalesce((SELECT position FROM feed_heads WHERE organization_id = ?), 0)', [orgId]);
  }
  if (changes.enabled === true && !current.enabled) {
    Object.assign(set, { disabled_at: null, disabled_reason: null, failing_since: null, next_attempt_at: null, last_error: null });
  }
  const [row] = await trx('webhook_endpoints').where({ organization_id: orgId, id }).update(set).returning('*');
  if (row.enabled) await wake(trx, id);
  return row;
}

/** The deleted row, or undefined when it is not the organization's. */
export async function deleteEndpoint(trx: Queryable, orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await trx('webhook_endpoints').where({ organization_id: orgId, id }).delete().returning('*');
  return row;
}

/** A new secret; the one it replaces keeps signing for `overlapMs`. */
export async function rotateSecret(
  trx: Queryable,
  orgId: string,
  id: string,
  overlapMs: number,
): Promise<{ row: WebhookEndpointRow; secret: string } | undefined> {
  if (!isUuid(id)) return undefined;
  const secret = newSecret();
  const [row] = await trx('webhook_endpoints')
    .where({ organization_id: orgId, id })
    .update({
      previous_secret: trx.ref('secret'),
      previous_secret_expires_at: trx.raw(`now() + ? * interval '1 millisecond'`, [overlapMs]),
      secret,
      generation: trx.raw('generation + 1'),
      updated_at: trx.fn.now(),
    })
    .returning('*');
  return row ? { row, secret } : undefined;
}

/** Rewinds delivery to just after `position` and rings the doorbell. */
export async function replayFrom(trx: Queryable, orgId: string, id: string, position: number): Promise<boolean> {
  if (!isUuid(id)) return false;
  const n = await trx('webhook_endpoints')
    .where({ organization_id: orgId, id })
    .update({ delivered_position: position, head_attempts: 0, failing_since: null, next_attempt_at: null, generation: trx.raw('generation + 1') });
  if (n) await wake(trx, id);
  return n > 0;
}

/**
 * Rings the endpoint's doorbell now, replacing a retry scheduled for later (see the migrations).
 * `key`: the job's key prefix, `webhook:` (the doorbell) or `webhook-lapse:` (a look when a lease lapses).
 */
export async function wake(
  db: Queryable,
  id: string,
  runAt: Date | null = null,
  mode: 'replace' | 'preserve_run_at' = 'replace',
  key: 'webhook:' | 'webhook-lapse:' = 'webhook:',
): Promise<void> {
  await db.raw('SELECT webhook_wake(?::uuid, ?::timestamptz, ?, ?)', [id, runAt, mode, key]);
}

/** The entry was not made by a credential the endpoint excludes (a system entry never is). */
export const NOT_EXCLUDED = (entry: string, excluded: string) => `COALESCE(${entry}.origin->>'credentialId', '') <> ALL(COALESCE(${excluded}, '{}'))`;

/**
 * An entry `f` is one the endpoint `e` is sent: one of its `types`, an update that changed one of
 * its `fields`, and not made by a credential it excludes.
 */
export const ENDPOINT_WANTS = (e: string, f: string) =>
  `(${e}.types IS NULL OR ${f}.type = ANY(${e}.types)) AND (${e}.fields IS NULL OR ${f}.changed_fields IS NULL OR jsonb_exists_any(${f}.changed_fields, ${e}.fields)) AND ${NOT_EXCLUDED(f, `${e}.exclude_origins`)}`;

/** Takes the endpoint's lease for `owner` when no live lease exists: the endpoint as leased, or undefined. */
export async function takeLease(db: Db, endpointId: string, owner: string, leaseMs: number): Promise<WebhookEndpointRow | undefined> {
  const acquired = await db.raw(
    `UPDATE webhook_endpoints SET lease_owner = ?, lease_expires_at = clock_timestamp() + ? * interval '1 millisecond'
      WHERE id = ? AND enabled AND (lease_owner IS NULL OR lease_expires_at < clock_timestamp())
      RETURNING *`,
    [owner, leaseMs, endpointId],
  );
  return (acquired.rows as WebhookEndpointRow[])[0];
}

/** When another run's lease on an enabled endpoint lapses (undefined: none holds it). */
export async function leaseLapse(db: Db, endpointId: string): Promise<Date | undefined> {
  const held = await db.raw('SELECT lease_expires_at FROM webhook_endpoints WHERE id = ? AND enabled AND lease_expires_at IS NOT NULL', [endpointId]);
  return (held.rows as { lease_expires_at: Date }[])[0]?.lease_expires_at;
}

/**
 * Lets go of the lease. The run may have ended because its connection was cut, and the pool can
 * hand the release the next dead connection: tried again (a fresh connection each time) before
 * the lease is left to lapse.
 */
export async function releaseLease(db: Db, endpointId: string, owner: string): Promise<void> {
  await onFreshConnections(() =>
    db.raw('UPDATE webhook_endpoints SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?', [endpointId, owner]),
  );
}

/** Whether the enabled endpoint has an entry it is sent after its position, and no retry waiting. */
export async function hasDueEntries(db: Db, endpointId: string): Promise<boolean> {
  const due = await db.raw(
    `SELECT 1 FROM webhook_endpoints e
      WHERE e.id = ? AND e.enabled AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now())
        AND EXISTS (SELECT 1 FROM change_feed f WHERE f.organization_id = e.organization_id AND f.position > e.delivered_position
                      AND ${ENDPOINT_WANTS('e', 'f')})`,
    [endpointId],
  );
  return due.rows.length > 0;
}

/**
 * The sweep: rings the doorbell of every enabled endpoint with entries it is sent and no live
 * lease, and prunes the delivery log older than `deliveryRetentionMs`.
 */
export async function sweepEndpoints(db: Db, deliveryRetentionMs: number): Promise<void> {
  await db.raw(
    `SELECT webhook_wake(e.id, greatest(e.next_attempt_at, now()), 'preserve_run_at') FROM webhook_endpoints e
      WHERE e.enabled AND (e.lease_expires_at IS NULL OR e.lease_expires_at < now())
        AND EXISTS (SELECT 1 FROM change_feed f WHERE f.organization_id = e.organization_id AND f.position > e.delivered_position
                      AND ${ENDPOINT_WANTS('e', 'f')})`,
  );
  await db.raw(`DELETE FROM webhook_deliveries WHERE attempted_at < now() - ? * interval '1 millisecond'`, [deliveryRetentionMs]);
}

/**
 * Moves the endpoint past entries it is not sent (up to `position`, all committed): no attempt to
 * log, nothing failing any more. False when the run no longer holds the lease with the same
 * generation (a reconfiguration applies its filters from where the endpoint then stands).
 */
export async function passOver(db: Db, ep: WebhookEndpointRow, owner: string, position: number, leaseMs: number): Promise<boolean> {
  const { rows } = await db.raw(
    `WITH ep AS (
       UPDATE webhook_endpoints SET delivered_position = GREATEST(delivered_position, ?::bigint), head_attempts = 0, failing_since = NULL,
              next_attempt_at = NULL, lease_expires_at = clock_timestamp() + ? * interval '1 millisecond'
        WHERE id = ? AND lease_owner = ? AND generation = ? AND enabled
       RETURNING 1
     ), relaxed AS (
       SELECT set_config('synchronous_commit', 'off', true)
     )
     SELECT count(*)::int AS kept FROM ep, relaxed`,
    [position, leaseMs, ep.id, owner, ep.generation],
  );
  return rows[0].kept > 0;
}

/** One attempt: the run that made it (the endpoint as it leased it, the lease owner), of which entry, and how it went. */
export interface Attempt {
  ep: WebhookEndpointRow;
  owner: string;
  /** The entry's feed position and type. */
  position: number;
  type: string;
  /** The message id (`webhook-id`). */
  id: string;
  /** 1 for the entry's first attempt. */
  number: number;
  result: SendResult;
  /** When its request was sent (the log's `attemptedAt`). */
  sentAt: Date;
  /** The endpoint's delivered position when the entry was sent (the entry before it, or where the run started). */
  after: number;
  /** The API version its body was rendered at. */
  version: string;
}

/**
 * Logs an attempt and moves the endpoint on (after a success or a final failure) or marks it
 * retrying, in one statement. False when the run no longer holds the lease with the same
 * generation: it must stop (the attempt is still logged while the endpoint exists).
 *
 * An entry the receiver acknowledged while the endpoint was reconfigured (a PATCH, a rotated
 * secret: the generation moved on during the request) is still recorded as delivered, so that the
 * next run does not send it again, when nothing about that entry changed meanwhile: the endpoint
 * still stands where the run left it (no replay moved it) and its settings now give the entry the
 * same API version its body was rendered at. Otherwise (a replay, or a version switch whose
 * cursor lies before the entry in flight) the next run sends it as the settings now say.
 *
 * The statement first locks the endpoint row (FOR KEY SHARE, the lock the log's foreign key check
 * takes anyway) and writes only through it: an endpoint deleted meanwhile (before the statement,
 * or by a transaction the lock waited for) is skipped, so nothing is logged and no foreign-key
 * violation is raised; a delete that comes later waits for this statement, and its cascade removes
 * the log row with the endpoint.
 *
 * Committed without waiting for the WAL flush (synchronous_commit off for this statement only):
 * losing the last progress marks in a database crash only means re-sending those entries, which
 * at-least-once delivery allows (the entries themselves were committed durably by their writers),
 * and waiting for a flush per event would bound throughput by the disk's flush latency.
 */
export async function recordAttempt(
  db: Db,
  a: Attempt,
  status: 'succeeded' | 'failed' | 'retrying',
  next: Date | null,
  failingSince: Date | null,
): Promise<boolean> {
  const { ep, owner, position, type, id, number: attempt, result: r, sentAt } = a;
  const advance = status !== 'retrying';
  const { rows } = await db.raw(
    `WITH endpoint AS MATERIALIZED (
       SELECT id, organization_id FROM webhook_endpoints WHERE id = ? FOR KEY SHARE
     ), ep AS (
       UPDATE webhook_endpoints SET
         delivered_position = CASE WHEN ? THEN ?::bigint ELSE delivered_position END,
         head_attempts = CASE WHEN ? THEN 0 ELSE ?::int END,
         failing_since = ?::timestamptz,
         next_attempt_at = ?::timestamptz,
         last_error = ?,
         last_success_at = CASE WHEN ? THEN clock_timestamp() ELSE last_success_at END,
         lease_expires_at = clock_timestamp() + ? * interval '1 millisecond'
       WHERE id = (SELECT id FROM endpoint) AND lease_owner = ? AND generation = ? AND enabled
       RETURNING 1
     ), log AS (
       INSERT INTO webhook_deliveries (organization_id, endpoint_id, position, type, message_id, attempt, status, response_status, duration_ms, error, next_attempt_at, attempted_at)
       SELECT organization_id, id, ?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz FROM endpoint
     ), relaxed AS (
       SELECT set_config('synchronous_commit', 'off', true)
     )
     SELECT count(*)::int AS kept FROM ep, relaxed`,
    [
      ep.id,
      advance,
      position,
      advance,
      attempt,
      failingSince,
      next,
      status === 'succeeded' ? null : r.error,
      status === 'succeeded',
      r.durationMs + 30_000,
      owner,
      ep.generation,
      position,
      type,
      id,
      attempt,
      status,
      r.status,
      r.durationMs,
      r.error,
      next,
      sentAt,
    ],
  );
  const kept = rows[0].kept > 0;
  if (!kept && status === 'succeeded') await recordDeliveredAfterChange(db, a);
  return kept;
}

/**
 * An acknowledged entry of a run whose endpoint changed meanwhile (recordAttempt's conditions):
 * the endpoint moves past it when it still stands where the run left it and its settings now give
 * the entry the API version its body was rendered at. A statement of its own, run only then (the
 * endpoint's reconfiguration is rare), so the attempt's bookkeeping stays as it was.
 */
async function recordDeliveredAfterChange(db: Db, a: Attempt): Promise<void> {
  await db.raw(
    `UPDATE webhook_endpoints SET delivered_position = ?::bigint, head_attempts = 0, failing_since = NULL, next_attempt_at = NULL, last_error = NULL,
            last_success_at = clock_timestamp()
      WHERE id = ? AND lease_owner = ? AND delivered_position = ?::bigint
        AND CASE WHEN api_version_after IS NOT NULL AND ?::bigint <= api_version_after
                 THEN coalesce(previous_api_version, api_version) ELSE api_version END = ?`,
    [a.position, a.ep.id, a.owner, a.after, a.position, a.version],
  );
}

/**
 * The attempt failed for the whole retry period (`since`): the endpoint is disabled (status
 * `failing`, resumable from this entry by enabling it, `reason` saying why) and the attempt logged
 * as final, in the caller's transaction. The endpoint as disabled, or undefined when the run no
 * longer holds the lease with the same generation (nothing written).
 */
export async function disableFailing(trx: Queryable, a: Attempt, since: Date, reason: string): Promise<WebhookEndpointRow | undefined> {
  const { ep, owner, position, type, id, number: attempt, result: r, sentAt } = a;
  const [row]: WebhookEndpointRow[] = await trx('webhook_endpoints')
    .where({ id: ep.id, lease_owner: owner, generation: ep.generation, enabled: true })
    .update({
      enabled: false,
      disabled_at: trx.fn.now(),
      disabled_reason: reason,
      next_attempt_at: null,
      last_error: r.error,
      generation: trx.raw('generation + 1'),
      updated_at: trx.fn.now(),
    })
    .returning('*');
  if (!row) return undefined;
  await trx('webhook_deliveries').insert({
    organization_id: ep.organization_id,
    endpoint_id: ep.id,
    position,
    type,
    message_id: id,
    attempt,
    status: 'failed',
    response_status: r.status,
    duration_ms: r.durationMs,
    attempted_at: sentAt,
    error: `${r.error} The endpoint is disabled after retrying since ${since.toISOString()}.`,
  });
  return row;
}

/** A logged attempt (table `webhook_deliveries`). */
interface WebhookDeliveryRow {
  id: string;
  message_id: string;
  /** A bigint: pg gives it as text. */
  position: string;
  type: WebhookDelivery['type'];
  attempt: number;
  status: WebhookDelivery['status'];
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: Date | null;
  attempted_at: Date;
}

export async function listDeliveries(
  db: Queryable,
  orgId: string,
  endpointId: string,
  limit: number,
  offset: number,
  cursorOf: (position: number) => string,
): Promise<WebhookDelivery[]> {
  const rows = await db('webhook_deliveries').where({ organization_id: orgId, endpoint_id: endpointId }).orderBy('seq', 'desc').limit(limit).offset(offset);
  return rows.map((r: WebhookDeliveryRow) => ({
    id: r.id,
    messageId: r.message_id,
    cursor: cursorOf(Number(r.position)),
    type: r.type,
    attempt: r.attempt,
    status: r.status,
    responseStatus: r.response_status ?? null,
    durationMs: r.duration_ms,
    error: r.error ?? null,
    nextAttemptAt: iso(r.next_attempt_at),
    attemptedAt: iso(r.attempted_at)!,
  }));
}
