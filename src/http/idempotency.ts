import { repeatedHeader } from './raw-headers';
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Request } from 'express';
import { ApiError, invalidField } from '../errors';
import { jsonText } from '../db/json';
import { contextOf } from './context';

/**
 * Idempotency-Key (IETF httpapi draft "The Idempotency-Key HTTP Header Field") for POSTs, PATCHes
 * and DELETEs with a caller. Everything happens inside the request's own write transaction, so no separate "in
 * progress" record is needed:
 * - a transaction-scoped advisory lock on (organization, key): a second request with the key while
 *   the first still runs does not get it and is refused with 409 (the first may still fail);
 * - a stored response for the key: same request (method, path with query, body) -> replayed with
 *   `Idempotent-Replayed: true`, another request -> 422;
 * - otherwise the handler runs and its response is stored in the same transaction, so it exists
 *   exactly when the write committed. Error responses are thrown, roll back, and store nothing:
 *   retrying a failed request runs it again.
 * Keys live in PostgreSQL (instances agree) per organization for KEEP_HOURS.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const KEEP_HOURS = 24;
/** Every write with a caller: POST, and PATCH and DELETE (retrying a timed-out PATCH or DELETE is as unsafe). */
const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'DELETE']);
const MAX_KEY_LENGTH = 255;
/** Expired keys removed per stored response: pruning stays a bounded, indexed delete. */
const PRUNE_BATCH = 50;

export interface IdempotentReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The key as sent; the draft's structured-field form `"abc"` and a bare `abc` are the same key. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  // Two keys are not one key (node would join them with ", ").
  if (repeatedHeader(req, IDEMPOTENCY_HEADER)) throw invalidField('header.Idempotency-Key', 'single', 'give one Idempotency-Key header, not several');
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim();
  const key = /^".*"$/.test(value) ? value.slice(1, -1) : value;
  if (!key || key.length > MAX_KEY_LENGTH || /[^\x20-\x7e]/.test(key)) {
    throw invalidField('header.Idempotency-Key', 'format', `must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`);
  }
  return key;
}

/** The transaction-scoped advisory lock a request with the key holds while it runs (`hashtextextended` of this text). */
export const idempotencyLockName = (orgId: string, key: string) => `idempotency:${orgId}:${key}`;

const fingerprintOf = (req: Request, body: unknown) =>
  createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');

export async function idempotent(
  trx: Knex.Transaction,
  orgId: string,
  req: Request,
  body: unknown,
  run: () => Promise<IdempotentReply>,
): Promise<IdempotentReply> {
  const key = IDEMPOTENT_METHODS.has(req.method) ? idempotencyKeyOf(req) : undefined;
  if (key === undefined) return run();
  contextOf(req).idempotencyKey = key;
  const locked = await trx.raw('SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS ok', [idempotencyLockName(orgId, key)]);
  if (!locked.rows[0].ok) {
    throw new ApiError(409, 'idempotency-key-in-use', 'Conflict', [
      {
        message: `header.Idempotency-Key: a request with key ${key} is still being processed; retry later`,
        field: 'header.Idempotency-Key',
        rule: 'in-progress',
      },
    ]);
  }
  const fingerprint = fingerprintOf(req, body);
  const stored = await trx('idempotency_keys')
    .where({ organization_id: orgId, key })
    .where('expires_at', '>', trx.fn.now())
    .first('fingerprint', 'status', 'body', 'headers');
  if (stored) {
    if (stored.fingerprint !== fingerprint) {
      throw new ApiError(422, 'idempotency-key-reused', 'Unprocessable content', [
        {
          message: `header.Idempotency-Key: key ${key} was already used with another request (method, path or body differ)`,
          field: 'header.Idempotency-Key',
          rule: 'same-request',
        },
      ]);
    }
    return { status: stored.status, body: stored.body === '' ? undefined : stored.body, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' } };
  }
  const reply = await run();
  const text = await jsonText(reply.body);
  await trx.raw(
    `DELETE FROM idempotency_keys WHERE organization_id = ? AND key IN
       (SELECT key FROM idempotency_keys WHERE organization_id = ? AND expires_at <= now() LIMIT ${PRUNE_BATCH})`,
    [orgId, orgId],
  );
  await trx('idempotency_keys')
    .insert({
      organization_id: orgId,
      key,
      fingerprint,
      status: reply.status,
      body: text,
      headers: JSON.stringify(reply.headers ?? {}),
      expires_at: trx.raw(`now() + make_interval(hours => ?)`, [KEEP_HOURS]),
    })
    .onConflict(['organization_id', 'key'])
    .merge();
  return { ...reply, body: text === '' ? undefined : text };
}
