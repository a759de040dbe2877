import { randomUUID } from 'node:crypto';
import type { Db } from '../db/knex';
import { encodeCursor } from '../feed/cursor';
import { CHANGED_ONE_OF, whatChanged } from '../feed/read';
import { writeTransaction } from '../feed/append';
import { endpointJson, wake } from '../resources/webhook-endpoints/queries';
import { createNotification } from '../resources/notifications/queries';
import type { Sender, SendResult } from '../webhooks/send';
import { signatureHeader } from '../webhooks/signing';
import { allowedHostsOf, type WebhookSettings } from '../webhooks/settings';

/**
 * Delivering to one endpoint: its entries after `delivered_position`, in feed order, one at a time.
 *
 * One worker at a time per endpoint, across every instance: a run first takes the endpoint's
 * lease (an UPDATE that succeeds only when no live lease exists); each attempt's bookkeeping renews
 * it and is conditional on still holding it with the same `generation`, so a run that lost its
 * lease (stalled past it) or whose endpoint was reconfigured, replayed or disabled meanwhile stops
 * at once. A lease outlives the attempt timeout, so a live worker never loses it mid-attempt; a
 * crashed or cut-off run's lease lapses, and the next run that found it held looks again then (the
 * minute's sweep is the backstop). Progress is written after
 * every attempt: a restart repeats at most the attempt that was in flight (at least once).
 *
 * A failing entry blocks only its own endpoint (feed order): it is retried with exponential backoff
 * and jitter, or after the receiver's Retry-After, by a job scheduled for that time, while other
 * endpoints' jobs run on. After `giveUpAfterMs` of failures the endpoint is disabled (status
 * `failing`) and its creator notified.
 */
export interface DeliveryDeps {
  db: Db;
  sender: Sender;
  settings: WebhookSettings;
  workerId: string;
  /** True once the worker is stopping: the run ends after the attempt in flight. */
  stopping(): boolean;
  random?: () => number;
}

const BATCH = 100;
/**
 * The most entries one read looks through: the read is bounded by positions (after the endpoint's,
 * at most this far, never past the head), so whatever plan PostgreSQL picks (a feed never analysed
 * makes it guess) reads at most this many rows, however rarely the endpoint's filters match.
 */
export const SCAN = 10_000;

interface Entry {
  position: number;
  type: string;
  resource: string;
  resource_id: string;
  occurred_at: Date;
  data: string;
  changed_fields: string | null;
  previous: string | null;
  origin: string;
}

/** The entry was not made by a credential the endpoint excludes (a system entry never is). */
const NOT_EXCLUDED = (entry: string, excluded: string) => `COALESCE(${entry}.origin->>'credentialId', '') <> ALL(COALESCE(${excluded}, '{}'))`;

/**
 * An entry `f` is one the endpoint `e` is sent: one of its `types`, an update that changed one of
 * its `fields`, and not made by a credential it excludes.
 */
export const ENDPOINT_WANTS = (e: string, f: string) =>
  `(${e}.types IS NULL OR ${f}.type = ANY(${e}.types)) AND (${e}.fields IS NULL OR ${f}.changed_fields IS NULL OR jsonb_exists_any(${f}.changed_fields, ${e}.fields)) AND ${NOT_EXCLUDED(f, `${e}.exclude_origins`)}`;

/** The lease: long enough for an attempt and its bookkeeping, renewed by every attempt. */
const leaseMs = (s: WebhookSettings) => s.timeoutMs + 30_000;

/** Backoff before attempt `failures + 1`: base * 2^(failures-1), capped, half of it random. */
export function retryDelay(s: WebhookSettings, failures: number, result: Pick<SendResult, 'retryAfterMs'>, random = Math.random): number {
  if (result.retryAfterMs !== undefined) return Math.min(result.retryAfterMs, s.retryMaxMs);
  const full = Math.min(s.retryBaseMs * 2 ** Math.min(failures - 1, 40), s.retryMaxMs);
  return Math.round(full / 2 + (random() * full) / 2);
}

/** The request body, built around the stored JSON text (no parse and re-serialize per entry). */
function bodyOf(orgId: string, e: Entry): string {
  const occurredAt = e.occurred_at.toISOString();
  const head = JSON.stringify({ cursor: encodeCursor(orgId, e.position), type: e.type, resource: e.resource, id: e.resource_id, occurredAt });
  return `{"type":${JSON.stringify(e.type)},"timestamp":"${occurredAt}","data":${head.slice(0, -1)},"origin":${e.origin},"data":${e.data}${whatChanged(e)}}}`;
}

export const messageId = (endpointId: string, position: number) => `msg_${endpointId.replace(/-/g, '')}_${position}`;

/**
 * Lets go of the lease. The run may have ended because its connection was cut, and the pool can
 * hand the release the next dead connection: tried again (a fresh connection each time) before
 * the lease is left to lapse.
 */
async function releaseLease(db: Db, endpointId: string, owner: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.raw('UPDATE webhook_endpoints SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND lease_owner = ?', [endpointId, owner]);
      return;
    } catch (err) {
      if (attempt >= 4) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * 4 ** (attempt - 1)));
    }
  }
}

export async function deliverEndpoint(deps: DeliveryDeps, endpointId: string): Promise<void> {
  const { db, settings } = deps;
  const owner = `${deps.workerId}/${randomUUID()}`;
  const acquired = await db.raw(
    `UPDATE webhook_endpoints SET lease_owner = ?, lease_expires_at = clock_timestamp() + ? * interval '1 millisecond'
      WHERE id = ? AND enabled AND (lease_owner IS NULL OR lease_expires_at < clock_timestamp())
      RETURNING *`,
    [owner, leaseMs(settings), endpointId],
  );
  const ep = acquired.rows[0];
  if (!ep) {
    // Disabled, deleted, or another run holds the lease: a live run looks again when done; a run
    // whose worker lost its connection (or died) cannot, so look again when its lease lapses,
    // rather than at the minute's sweep. That look is a job of its own key: under the doorbell's
    // key it would hold back (preserve_run_at) the doorbells rung meanwhile until the lease's end.
    const held = await db.raw('SELECT lease_expires_at FROM webhook_endpoints WHERE id = ? AND enabled AND lease_expires_at IS NOT NULL', [endpointId]);
    if (held.rows.length) await wake(db, endpointId, held.rows[0].lease_expires_at, 'replace', 'webhook-lapse:');
    return;
  }
  try {
    await drain(deps, ep, owner);
  } finally {
    await releaseLease(db, endpointId, owner);
  }
  // Entries committed while this run was finishing rang a doorbell this run may have ignored (it
  // held the lease): look once more after letting go of it. Also when this worker is stopping (the
  // run ended early): its job is done, so without a new one another instance would only find the
  // entries at its next sweep; this worker's runner takes no new job.
  const due = await db.raw(
    `SELECT 1 FROM webhook_endpoints e
      WHERE e.id = ? AND e.enabled AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now())
        AND EXISTS (SELECT 1 FROM change_feed f WHERE f.organization_id = e.organization_id AND f.position > e.delivered_position
                      AND ${ENDPOINT_WANTS('e', 'f')})`,
    [endpointId],
  );
  if (due.rows.length) await wake(db, endpointId, null, 'preserve_run_at');
}

async function drain(deps: DeliveryDeps, ep: any, owner: string): Promise<void> {
  const { db, settings } = deps;
  const orgId: string = ep.organization_id;
  if (ep.next_attempt_at && ep.next_attempt_at.getTime() > Date.now()) {
    // Woken early (a new entry, a sweep): the entry at the head still waits for its backoff.
    await wake(db, ep.id, ep.next_attempt_at, 'replace');
    return;
  }
  // A development organization's receivers may be on this machine (src/webhooks/ssrf.ts).
  const allowedHosts = await allowedHostsOf(db, orgId, settings.allowedHosts);
  let position = Number(ep.delivered_position);
  let failures: number = ep.head_attempts;
  let failingSince: Date | null = ep.failing_since;
  // The bookkeeping of a success runs while the next entry is being sent (it is awaited before
  // anything else is decided), so a slow commit does not add to every event's time. If it finds
  // the lease lost, the entry sent meanwhile is the one duplicate in flight.
  let pending: Promise<boolean> | undefined;
  const settled = async () => {
    const kept = pending ? await pending : true;
    pending = undefined;
    return kept;
  };
  try {
    while (!deps.stopping()) {
      // Every entry up to the head read here is committed (the head moves in the transaction that
      // adds the entries, under its row lock), so a later statement sees all of them.
      const head = Number((await db.raw('SELECT position FROM feed_heads WHERE organization_id = ?', [orgId])).rows[0]?.position ?? 0);
      const upTo = Math.min(head, position + SCAN);
      if (upTo <= position) return;
      const { rows: entries } = (await db.raw(
        `SELECT position, type, resource, resource_id, occurred_at, origin::text AS origin, data::text AS data,
                changed_fields::text AS changed_fields, previous::text AS previous
           FROM change_feed c
          WHERE organization_id = ? AND position > ? AND position <= ? AND (?::text[] IS NULL OR type = ANY(?::text[]))
            AND (?::text[] IS NULL OR ${CHANGED_ONE_OF('c')}) AND ${NOT_EXCLUDED('c', '?::text[]')}
          ORDER BY position LIMIT ?`,
        [orgId, position, upTo, ep.types, ep.types, ep.fields, ep.fields, ep.exclude_origins, BATCH],
      )) as { rows: Entry[] };
      if (!entries.length) {
        // Nothing up to upTo is for this endpoint (other types, its own writes, fields it does not
        // follow): it moves past them, so no later run, sweep or check reads them again.
        if (!(await settled()) || !(await passOver(db, ep, owner, upTo, leaseMs(settings)))) return;
        position = upTo;
        failures = 0;
        failingSince = null;
        continue;
      }
      for (const entry of entries) {
        if (deps.stopping()) return;
        entry.position = Number(entry.position);
        const id = messageId(ep.id, entry.position);
        const body = bodyOf(orgId, entry);
        const now = new Date();
        const secrets = ep.previous_secret && ep.previous_secret_expires_at > now ? [ep.previous_secret, ep.secret] : [ep.secret];
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signatureHeader(secrets, id, now, body),
        };
        const result = await deps.sender.send(ep.url, headers, body, allowedHosts);
        if (!(await settled())) return;
        const attempt: Attempt = { ep, owner, entry, id, number: failures + 1, result, sentAt: now };
        if (result.outcome === 'retry') {
          const since = failingSince ?? now;
          if (Date.now() - since.getTime() >= settings.giveUpAfterMs) {
            await giveUp(deps, attempt, since);
            return;
          }
          const next = new Date(Date.now() + retryDelay(settings, attempt.number, result, deps.random));
          if (!(await record(db, attempt, 'retrying', next, since))) return;
          await wake(db, ep.id, next, 'replace');
          return;
        }
        pending = record(db, attempt, result.outcome, null, null);
        // Without a handler a rejection could be reported as unhandled before it is awaited.
        pending.catch(() => undefined);
        position = entry.position;
        failures = 0;
        failingSince = null;
      }
      if (!(await settled())) return;
    }
  } finally {
    await settled();
  }
}

/**
 * Moves the endpoint past entries it is not sent (up to `position`, all committed): no attempt to
 * log, nothing failing any more. False when the run no longer holds the lease with the same
 * generation (a reconfiguration applies its filters from where the endpoint then stands).
 */
async function passOver(db: Db, ep: any, owner: string, position: number, leaseMs: number): Promise<boolean> {
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
interface Attempt {
  ep: any;
  owner: string;
  entry: Entry;
  /** The message id (`webhook-id`). */
  id: string;
  /** 1 for the entry's first attempt. */
  number: number;
  result: SendResult;
  /** When its request was sent (the log's `attemptedAt`). */
  sentAt: Date;
}

/**
 * Logs an attempt and moves the endpoint on (after a success or a final failure) or marks it
 * retrying, in one statement. False when the run no longer holds the lease with the same
 * generation: it must stop (the attempt is still logged while the endpoint exists).
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
async function record(db: Db, a: Attempt, status: 'succeeded' | 'failed' | 'retrying', next: Date | null, failingSince: Date | null): Promise<boolean> {
  const { ep, owner, entry, id, number: attempt, result: r, sentAt } = a;
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
      entry.position,
      advance,
      attempt,
      failingSince,
      next,
      status === 'succeeded' ? null : r.error,
      status === 'succeeded',
      r.durationMs + 30_000,
      owner,
      ep.generation,
      entry.position,
      entry.type,
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
  return rows[0].kept > 0;
}

/**
 * The entry failed for the whole retry period: the attempt is logged as final, the endpoint is
 * disabled (status `failing`, resumable from this entry by enabling it) and its creator gets an
 * `integration_issue` notification, all in one transaction whose changes enter the feed.
 */
async function giveUp(deps: DeliveryDeps, a: Attempt, since: Date): Promise<void> {
  const { ep, owner, entry, id, number: attempt, result: r, sentAt } = a;
  const reason = `Deliveries failed for ${Math.round((Date.now() - since.getTime()) / 60_000)} min since ${since.toISOString()} (last error: ${r.error})`;
  await writeTransaction(deps.db, ep.organization_id, async (trx, changes) => {
    const [row] = await trx('webhook_endpoints')
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
    if (!row) return;
    await trx('webhook_deliveries').insert({
      organization_id: ep.organization_id,
      endpoint_id: ep.id,
      position: entry.position,
      type: entry.type,
      message_id: id,
      attempt,
      status: 'failed',
      response_status: r.status,
      duration_ms: r.durationMs,
      attempted_at: sentAt,
      error: `${r.error} The endpoint is disabled after retrying since ${since.toISOString()}.`,
    });
    changes.add({ type: 'webhook_endpoint.updated', resource: 'webhook_endpoint', id: ep.id, data: endpointJson(row) });
    const recipient = ep.created_by && (await trx('users').where({ organization_id: ep.organization_id, id: ep.created_by }).first('id'));
    if (recipient) {
      const notification = await createNotification(trx, ep.organization_id, {
        recipientId: ep.created_by,
        type: 'integration_issue',
        payload: { lastSyncTime: (row.last_success_at ?? row.created_at).toISOString(), webhookEndpoint: { id: ep.id, url: ep.url }, reason },
      });
      // The notification as its read endpoint returns it (a JSON text built by PostgreSQL).
      const data = JSON.parse(notification) as { id: string };
      changes.add({ type: 'notification.created', resource: 'notification', id: data.id, data });
    }
  });
}
