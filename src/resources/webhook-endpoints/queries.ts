import type { Queryable } from '../../db/knex';
import { isUuid } from '../../db/columns';
import type { Schema } from '../../http/handler';
import { newSecret } from '../../webhooks/signing';
import { encodeCursor } from '../../feed/cursor';

type WebhookEndpoint = Schema<'WebhookEndpoint'>;
type WebhookDelivery = Schema<'WebhookDelivery'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The stored row as the API shows it (never the secrets). */
export function endpointJson(r: any): WebhookEndpoint {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    types: r.types ?? null,
    fields: r.fields ?? null,
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
  const rows = await db('webhook_endpoints')
    .where('organization_id', orgId)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .limit(limit)
    .offset(offset);
  return rows.map(endpointJson);
}

/** The stored row (with secrets), or undefined when it is not the organization's. */
export async function endpointRow(db: Queryable, orgId: string, id: string, lock = false): Promise<any | undefined> {
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
export async function createEndpoint(trx: Queryable, orgId: string, userId: string, input: EndpointInput): Promise<{ row: any; secret: string }> {
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
export async function updateEndpoint(trx: Queryable, orgId: string, id: string, changes: Partial<EndpointInput>): Promise<any | undefined> {
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
export async function deleteEndpoint(trx: Queryable, orgId: string, id: string): Promise<any | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await trx('webhook_endpoints').where({ organization_id: orgId, id }).delete().returning('*');
  return row;
}

/** A new secret; the one it replaces keeps signing for `overlapMs`. */
export async function rotateSecret(trx: Queryable, orgId: string, id: string, overlapMs: number): Promise<{ row: any; secret: string } | undefined> {
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

export async function listDeliveries(
  db: Queryable,
  orgId: string,
  endpointId: string,
  limit: number,
  offset: number,
  cursorOf: (position: number) => string,
): Promise<WebhookDelivery[]> {
  const rows = await db('webhook_deliveries').where({ organization_id: orgId, endpoint_id: endpointId }).orderBy('seq', 'desc').limit(limit).offset(offset);
  return rows.map((r: any) => ({
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
