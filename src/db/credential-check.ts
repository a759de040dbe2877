import type { Db } from './knex';

/**
 * A read request's credential check, carried by the request's first statement instead of costing
 * a round trip of its own (the floor's way: one statement authenticates and reads).
 *
 * The credential's organization and user come from a cache (a key's owner never changes); whether
 * it is still live (not revoked, client not deleted) is always asked of the database, in the same
 * statement as the first read, or on its own when no statement carried it. Either way it is
 * settled before any response leaves, so a revoked credential gets 401 at once, never data.
 * Only reads take this path: a write checks its credential before it starts.
 */
export interface CredentialCheck {
  /** A boolean SQL expression, true while the credential is live; placeholders $1.. index `values`. */
  readonly sql: string;
  readonly values: unknown[];
  /** A statement has taken the check on (concurrent statements of a request do not repeat it). */
  claimed: boolean;
  settled: boolean;
  /** Records the answer; throws the 401 when the credential is no longer live. */
  settle(live: boolean): void;
}

export const CREDENTIAL_CHECK = Symbol('credential check');

/** The request's database handle: the shared pool, carrying the check for the first read. */
export function withCredentialCheck(db: Db, check: CredentialCheck): Db {
  return new Proxy(db, { get: (target, prop) => (prop === CREDENTIAL_CHECK ? check : Reflect.get(target, prop, target)) });
}

export function pendingCheck(db: unknown): CredentialCheck | undefined {
  const check = (db as { [CREDENTIAL_CHECK]?: CredentialCheck })[CREDENTIAL_CHECK];
  return check && !check.claimed && !check.settled ? check : undefined;
}

// Carried statement texts by check and statement: the same text object for the same shape, so
// its prepared-statement name is found without hashing a new string per request.
const carried = new Map<string, Map<string, string>>();
const CARRIED_MAX = 10_000;

/** `SELECT <check> AS __live, x.* FROM (<sql>) x`, the check's placeholders renumbered after the statement's. */
export function carryCheck(sql: string, values: unknown[], check: CredentialCheck): { text: string; values: unknown[] } {
  let texts = carried.get(check.sql);
  if (!texts) carried.set(check.sql, (texts = new Map()));
  let text = texts.get(sql);
  if (text === undefined) {
    const shifted = check.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + values.length}`);
    text = `SELECT (${shifted}) AS "__live", x.* FROM (${sql}) AS x`;
    if (texts.size >= CARRIED_MAX) texts.clear();
    texts.set(sql, text);
  }
  return { text, values: [...values, ...check.values] };
}

/** Settles the check with a statement of its own when no read carried it (or the read found no row). */
export async function settleCredentialCheck(db: Db, check: CredentialCheck | undefined): Promise<void> {
  if (!check || check.settled) return;
  const { rows } = await db.raw(`SELECT (${check.sql.replace(/\$(\d+)/g, '?')}) AS live`, check.values as any[]);
  check.settle(Boolean(rows[0]?.live));
}
