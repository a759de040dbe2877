import { randomUUID } from 'node:crypto';
import type { Db } from '../db/knex';
import { onFreshConnections } from '../db/retry';
import { encodeCursor } from '../feed/cursor';
import { webhookBodyAt } from '../versions/registry';
import { CHANGED_ONE_OF, whatChanged } from '../feed/read';
import { writeTransaction } from '../feed/append';
import {
  type Attempt,
  disableFailing,
  endpointJson,
  hasDueEntries,
  leaseLapse,
  NOT_EXCLUDED,
  passOver,
  recordAttempt,
  releaseLease,
  takeLease,
  wake,
  type WebhookEndpointRow,
} from '../resources/webhook-endpoints/queries';
import { createNotification } from '../resources/notifications/queries';
import { entry as feedEntry } from '../feed/emit';
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

export async function deliverEndpoint(deps: DeliveryDeps, endpointId: string): Promise<void> {
  const { db, settings } = deps;
  const owner = `${deps.workerId}/${randomUUID()}`;
  const ep = await takeLease(db, endpointId, owner, leaseMs(settings));
  if (!ep) {
    // Disabled, deleted, or another run holds the lease: a live run looks again when done; a run
    // whose worker lost its connection (or died) cannot, so look again when its lease lapses,
    // rather than at the minute's sweep. That look is a job of its own key: under the doorbell's
    // key it would hold back (preserve_run_at) the doorbells rung meanwhile until the lease's end.
    const lapse = await leaseLapse(db, endpointId);
    if (lapse) await wake(db, endpointId, lapse, 'replace', 'webhook-lapse:');
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
  if (await hasDueEntries(db, endpointId)) await wake(db, endpointId, null, 'preserve_run_at');
}

async function drain(deps: DeliveryDeps, ep: WebhookEndpointRow, owner: string): Promise<void> {
  const { db, settings } = deps;
  const orgId = ep.organization_id;
  if (ep.next_attempt_at && ep.next_attempt_at.getTime() > Date.now()) {
    // Woken early (a new entry, a sweep): the entry at the head still waits for its backoff.
    await wake(db, ep.id, ep.next_attempt_at, 'replace');
    return;
  }
  // A development organization's receivers may be on this machine (src/webhooks/ssrf.ts).
  const allowedHosts = await allowedHostsOf(db, orgId, settings.allowedHosts);
  let position = Number(ep.delivered_position);
  let failures = ep.head_attempts;
  let failingSince = ep.failing_since;
  // The bookkeeping of a success runs while the next entry is being sent (it is awaited before
  // anything else is decided), so a slow commit does not add to every event's time. If it finds
  // the lease lost, the entry sent meanwhile is the one duplicate in flight. A connection cut under
  // it is no reason to send an acknowledged entry again (api/guides.md: only after a non-2xx): it is
  // tried again on fresh connections (a failure there used to end the run, and the next one sent
  // that entry and the one after it again: 6 of 115 acknowledged entries, in pairs, in a probe).
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
        // At the endpoint's API version: the one in force before its last change up to that change's position.
        const version =
          ep.api_version_after !== null && entry.position <= Number(ep.api_version_after) ? (ep.previous_api_version ?? ep.api_version) : ep.api_version;
        const body = webhookBodyAt(version, bodyOf(orgId, entry));
        const now = new Date();
        const secrets =
          ep.previous_secret && ep.previous_secret_expires_at && ep.previous_secret_expires_at > now ? [ep.previous_secret, ep.secret] : [ep.secret];
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signatureHeader(secrets, id, now, body),
        };
        const result = await deps.sender.send(ep.url, headers, body, allowedHosts);
        if (!(await settled())) return;
        const attempt: Attempt = {
          ep,
          owner,
          position: entry.position,
          type: entry.type,
          id,
          number: failures + 1,
          result,
          sentAt: now,
          after: position,
          version,
        };
        if (result.outcome === 'retry') {
          const since = failingSince ?? now;
          if (Date.now() - since.getTime() >= settings.giveUpAfterMs) {
            await giveUp(deps, attempt, since);
            return;
          }
          const next = new Date(Date.now() + retryDelay(settings, attempt.number, result, deps.random));
          if (!(await recordAttempt(db, attempt, 'retrying', next, since))) return;
          await wake(db, ep.id, next, 'replace');
          return;
        }
        const outcome = result.outcome;
        pending = onFreshConnections(() => recordAttempt(db, attempt, outcome, null, null));
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
 * The entry failed for the whole retry period: the attempt is logged as final, the endpoint is
 * disabled (status `failing`, resumable from this entry by enabling it) and its creator gets an
 * `integration_issue` notification, all in one transaction whose changes enter the feed.
 */
async function giveUp(deps: DeliveryDeps, a: Attempt, since: Date): Promise<void> {
  const { ep, result: r } = a;
  const reason = `Deliveries failed for ${Math.round((Date.now() - since.getTime()) / 60_000)} min since ${since.toISOString()} (last error: ${r.error})`;
  await writeTransaction(deps.db, ep.organization_id, async (trx, changes) => {
    const row = await disableFailing(trx, a, since, reason);
    if (!row) return;
    changes.add(feedEntry('webhook_endpoint', 'updated', endpointJson(row)));
    const recipient = ep.created_by && (await trx('users').where({ organization_id: ep.organization_id, id: ep.created_by }).first('id'));
    if (recipient && ep.created_by) {
      const notification = await createNotification(trx, ep.organization_id, {
        recipientId: ep.created_by,
        type: 'integration_issue',
        payload: { lastSyncTime: (row.last_success_at ?? row.created_at).toISOString(), webhookEndpoint: { id: ep.id, url: ep.url }, reason },
      });
      // The notification as its read endpoint returns it (a JSON text built by PostgreSQL).
      changes.add(feedEntry('notification', 'created', JSON.parse(notification) as { id: string }));
    }
  });
}
