import { setTimeout as pause } from 'node:timers/promises';
import type { Queryable } from '../db/knex';
import type { ComponentLog } from '../ops/log';
import { versionNamed } from './registry';
import { deprecationsOf, present } from './deprecations';

/**
 * What a request used that is deprecated at its version: `version` (the version itself),
 * `operation`, `query.<name>`, `header.<name>`, `body.<path>` (`items[].note`), and
 * `response.<Schema>.<field>` (a field its success reply carries: counted for every request of
 * the operation, whatever it answers, as the caller's code that calls it reads the field).
 * Empty for most requests, at the cost of a look-up (deprecations.ts).
 */
export function deprecatedUses(
  version: string,
  operationId: string | undefined,
  query: Record<string, unknown>,
  headers: Record<string, unknown>,
  body: unknown,
): string[] {
  const uses: string[] = [];
  if (versionNamed(version)?.deprecatedAt) uses.push('version');
  if (!operationId) return uses;
  const d = deprecationsOf(version, operationId);
  if (d.operation) uses.push('operation');
  for (const p of d.parameters) if ((p.in === 'query' ? query[p.name] : headers[p.name.toLowerCase()]) !== undefined) uses.push(`${p.in}.${p.name}`);
  for (const path of d.bodyFields) if (present(body, path)) uses.push(`body.${path.join('.').replace(/\.\[\]/g, '[]')}`);
  uses.push(...d.responseFields);
  return uses;
}

/** How many days of deprecated usage a caller lists (GET /deprecated-usage) and the service keeps. */
export const USAGE_DAYS = 30;

export interface DeprecatedRequest {
  organizationId: string;
  credentialId: string;
  version: string;
  operationId: string;
  uses: string[];
  requestId: string;
}

/** One line of the usage to add: a (organization, credential, version, operation, deprecated thing) and its requests. */
interface Counted {
  organizationId: string;
  credentialId: string;
  version: string;
  operationId: string;
  what: string;
  count: number;
  lastRequestId: string;
}

/** Adds the lines to today's usage, one statement, in the order of their keys (two instances' statements lock rows in one order). */
async function addUsage(db: Queryable, lines: Counted[]): Promise<void> {
  const column = <K extends keyof Counted>(k: K) => lines.map((l) => l[k]);
  await db.raw(
    `INSERT INTO deprecated_usage AS u (organization_id, day, credential_id, version, operation_id, what, count, last_request_id, last_request_at)
     SELECT o, current_date, c, v, op, w, n, r, now()
       FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[]) AS t(o, c, v, op, w, n, r)
     ON CONFLICT (organization_id, day, credential_id, version, operation_id, what)
     DO UPDATE SET count = u.count + excluded.count, last_request_id = excluded.last_request_id, last_request_at = excluded.last_request_at`,
    [column('organizationId'), column('credentialId'), column('version'), column('operationId'), column('what'), column('count'), column('lastRequestId')],
  );
}

const recorders = new Set<DeprecatedUsageRecorder>();

/**
 * After each statement, the uses recorded meanwhile wait this long to be summed with more: a
 * client at a deprecated version sending thousands of requests a second otherwise had a statement
 * in flight at all times (the database's CPU per request of an older version's single read was
 * half as much again as the newest's: bench `versions` rows). A listing still sees every use
 * answered before it (usageSettled waits for the pause too).
 */
const PAUSE_MS = 200;

/**
 * Counts requests' deprecated uses in deprecated_usage, off the request's path: a read at a
 * deprecated version must not wait for a write (a commit per request made an older version's
 * single read several times the newest's). One statement at a time: the uses recorded while one
 * is in flight are summed per line into the next (a client still at a deprecated version adds to
 * one row per operation, which concurrent statements would queue on). A failure is logged; those
 * counts are lost, as are those of a process killed before its statement (a graceful shutdown stores them first: closeApp). The listing waits
 * for this process's counts (usageSettled): a request's use is listed as soon as it was answered.
 */
export class DeprecatedUsageRecorder {
  private inFlight: Promise<void> | undefined;
  /** The lines to add next: per (organization, credential, version, operation), per deprecated thing (one key built per request, not one per use). */
  private next: Map<string, Map<string, Counted>> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly log: ComponentLog,
  ) {
    recorders.add(this);
  }

  record(r: DeprecatedRequest): void {
    const next = (this.next ??= new Map());
    const key = `${r.organizationId}\n${r.credentialId}\n${r.version}\n${r.operationId}`;
    let lines = next.get(key);
    if (!lines) next.set(key, (lines = new Map()));
    for (const what of r.uses) {
      const line = lines.get(what);
      if (line) {
        line.count++;
        line.lastRequestId = r.requestId;
      } else
        lines.set(what, {
          organizationId: r.organizationId,
          credentialId: r.credentialId,
          version: r.version,
          operationId: r.operationId,
          what,
          count: 1,
          lastRequestId: r.requestId,
        });
    }
    if (!this.inFlight) this.flush();
  }

  /** Resolves once every use recorded before the call is stored (or its failure logged). */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  private flush(): void {
    const lines = this.next;
    this.next = undefined;
    if (!lines) {
      this.inFlight = undefined;
      return;
    }
    const key = (l: Counted) => [l.organizationId, l.credentialId, l.version, l.operationId, l.what].join('\n');
    const sorted = [...lines.values()]
      .flatMap((byWhat) => [...byWhat.values()])
      .map((line) => ({ key: key(line), line }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ line }) => line);
    this.inFlight = addUsage(this.db, sorted)
      .catch((err) => this.log.error('counting deprecated usage failed', err))
      .then(() => (this.next ? pause(PAUSE_MS) : undefined))
      .then(() => this.flush());
  }
}

/** Every use this process recorded so far, stored (before a listing). */
export const usageSettled = () => Promise.all([...recorders].map((r) => r.settled()));

/** The organization's deprecated usage of the last 30 days, most recent first (GET /deprecated-usage, the admin CLI). */
export async function deprecatedUsage(db: Queryable, organizationId: string) {
  await usageSettled();
  const { rows } = await db.raw(
    `SELECT DISTINCT ON (credential_id, version, operation_id, what)
            credential_id, version, operation_id, what,
            sum(count) OVER w AS count, last_request_id, last_request_at
       FROM deprecated_usage
      WHERE organization_id = ? AND day > current_date - ?::int
     WINDOW w AS (PARTITION BY credential_id, version, operation_id, what)
      ORDER BY credential_id, version, operation_id, what, last_request_at DESC`,
    [organizationId, USAGE_DAYS],
  );
  return (rows as any[])
    .map((r) => ({
      credentialId: r.credential_id as string,
      version: r.version as string,
      operationId: r.operation_id as string,
      deprecated: r.what as string,
      count: Number(r.count),
      lastRequestId: r.last_request_id as string,
      lastRequestAt: new Date(r.last_request_at).toISOString(),
    }))
    .sort((a, b) => (a.lastRequestAt < b.lastRequestAt ? 1 : a.lastRequestAt > b.lastRequestAt ? -1 : 0));
}

/**
 * Deletes the days no caller lists any more (older than USAGE_DAYS): the background worker's daily
 * task (src/background/worker.ts). One statement: a row per organization, day, credential, version,
 * operation and deprecated thing is few rows a day. Returns how many were deleted.
 */
export async function pruneDeprecatedUsage(db: Queryable): Promise<number> {
  const { rowCount } = await db.raw('DELETE FROM deprecated_usage WHERE day <= current_date - ?::int', [USAGE_DAYS]);
  return rowCount ?? 0;
}
