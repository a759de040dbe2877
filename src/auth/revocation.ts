import { EventEmitter } from 'node:events';
import type { Queryable } from '../db/knex';

/**
 * Revoking a credential (an API key rotated, an OAuth client deleted) tells every service
 * instance at once: a PostgreSQL NOTIFY on this channel, sent inside the revoking transaction, so
 * it is delivered exactly when the revocation commits (and never if it rolls back). Each instance's
 * credential cache LISTENs on it (credential-cache.ts).
 */
export const REVOCATION_CHANNEL = 'credential_revoked';

/** Instances in this process hear of a revocation as soon as it commits, without waiting for the notification's round trip. */
export const localRevocations = new EventEmitter();
localRevocations.setMaxListeners(0);

/** Call inside the revoking transaction; `what` names the credential (for logs and tests). */
export async function notifyRevocation(trx: Queryable, what: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [REVOCATION_CHANNEL, what]);
}

/** Call once the revoking transaction has committed: this process's caches forget at once. */
export function revokedLocally(what: string): void {
  localRevocations.emit('revoked', what);
}
