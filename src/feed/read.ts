import type { Knex } from 'knex';
import type { Queryable } from '../db/knex';
import { encodeCursor } from './cursor';
import { JsonParts } from '../db/json';

export interface ChangesQuery {
  /** The position after which to read; undefined: from the oldest kept; 'now': none, just the head. */
  after: number | 'now' | undefined;
  limit: number;
  types?: string[];
  resource?: string;
  /** Only update entries that changed one of these fields (creations and deletions pass). */
  fields?: string[];
  /** Leave out the entries of these credentials (origin.credentialId). */
  excludeOrigins?: string[];
}

/**
 * The condition `fields` puts on an entry of alias `c` (one text[] binding): an entry without
 * changed_fields (a creation, a deletion, an object with no known previous state) passes; an
 * update passes when it changed one of the fields. Also a webhook endpoint's `fields`.
 */
export const CHANGED_ONE_OF = (c: string) => `(${c}.changed_fields IS NULL OR jsonb_exists_any(${c}.changed_fields, ?::text[]))`;

/** `,"changedFields":[...],"previous":{...}` of an entry that has them (as stored, as text). */
export const whatChanged = (r: { changed_fields: string | null; previous: string | null }): string =>
  r.changed_fields === null ? '' : `,"changedFields":${r.changed_fields},"previous":${r.previous ?? '{}'}`;

export type ChangesPage =
  | { ok: true; page: JsonParts<unknown>; nextCursor: string; hasMore: boolean }
  /** The cursor points before the oldest kept entry, or past the newest (a restored database). */
  | { ok: false; gone: true };

interface Row {
  head: number | null;
  pruned: number | null;
  position: number | null;
  type: string;
  resource: string;
  resource_id: string;
  occurred_at: string;
  data: string;
  changed_fields: string | null;
  previous: string | null;
  origin: string;
}

/** The statement of readChanges: the head, the retention watermark and the page's entries. */
export function changesStatement(organizationId: string, q: ChangesQuery): { sql: string; bindings: Knex.RawBinding[] } {
  const filters: string[] = [];
  const bindings: Knex.RawBinding[] = [organizationId, organizationId, q.after === 'now' ? null : (q.after ?? null)];
  if (q.types?.length) {
    filters.push('AND c.type = ANY(?::text[])');
    bindings.push(q.types);
  }
  if (q.excludeOrigins?.length) {
    // A system entry has no credential id: never one of those left out.
    filters.push(`AND COALESCE(c.origin->>'credentialId', '') <> ALL(?::text[])`);
    bindings.push(q.excludeOrigins);
  }
  if (q.resource) {
    filters.push('AND c.resource = ?');
    bindings.push(q.resource);
  }
  if (q.fields?.length) {
    filters.push(`AND ${CHANGED_ONE_OF('c')}`);
    bindings.push(q.fields);
  }
  if (!filters.length) {
    // Unfiltered, the page is exactly the positions after the cursor (a snapshot holds every
    // position up to the head: append.ts): bounded, the statement reads those rows whatever the
    // planner estimates. Without the bound, an organization's feed whose statistics are missing or
    // stale (a new table, autovacuum off) was read whole and sorted for every page: 110,000
    // entries, 300 ms for a page of 1000.
    filters.push('AND c.position <= COALESCE(?::bigint, (SELECT pruned_through FROM h), 0) + ?::bigint');
    bindings.push(bindings[2], q.limit + 1);
  }
  bindings.push(q.after === 'now' ? 0 : q.limit + 1);
  return {
    sql: `WITH h AS (SELECT position, pruned_through FROM feed_heads WHERE organization_id = ?)
     SELECT (SELECT position FROM h) AS head, (SELECT pruned_through FROM h) AS pruned, p.*
       FROM (SELECT 1) AS one
       LEFT JOIN (
         SELECT c.position, c.type, c.resource, c.resource_id, api_ts(c.occurred_at) AS occurred_at, c.origin::text AS origin, c.data::text AS data,
                c.changed_fields::text AS changed_fields, c.previous::text AS previous
           FROM change_feed c
          WHERE c.organization_id = ? AND c.position > COALESCE(?::bigint, (SELECT pruned_through FROM h), 0) ${filters.join(' ')}
          ORDER BY c.position
          LIMIT ?
       ) AS p ON true
      ORDER BY p.position`,
    bindings,
  };
}

/**
 * A page of the organization's feed, read in ONE statement so the head, the retention watermark
 * and the entries come from one snapshot. A snapshot always holds a prefix 1..head of the
 * positions (append.ts), so when fewer entries than `limit` match, the page has scanned through
 * `head` and `nextCursor` is the head's cursor: a filtered reader moves past what it skipped.
 * The page is assembled as text: each entry's `data` goes out as PostgreSQL stored it, never
 * parsed by node.
 */
export async function readChanges(db: Queryable, organizationId: string, q: ChangesQuery): Promise<ChangesPage> {
  const { sql, bindings } = changesStatement(organizationId, q);
  const { rows } = (await db.raw(sql, bindings)) as { rows: Row[] };
  const head = Number(rows[0]?.head ?? 0);
  const pruned = Number(rows[0]?.pruned ?? 0);
  if (typeof q.after === 'number' && (q.after < pruned || q.after > head)) return { ok: false, gone: true };

  const entries = rows.filter((r) => r.position !== null);
  const hasMore = entries.length > q.limit;
  if (hasMore) entries.length = q.limit;
  const next = hasMore ? Number(entries[entries.length - 1].position) : head;
  const parts = entries.map(
    (r) =>
      `{"cursor":"${encodeCursor(organizationId, Number(r.position))}","type":${JSON.stringify(r.type)},"resource":${JSON.stringify(r.resource)},"id":"${r.resource_id}","occurredAt":"${r.occurred_at}","origin":${r.origin},"data":${r.data}${whatChanged(r)}}`,
  );
  const nextCursor = encodeCursor(organizationId, next);
  // The entries' texts are kept: a reader at an older API version gets those it does not move as they are (VersionMoves.partsDown).
  return { ok: true, page: JsonParts.gather('{"data":[', parts, `],"nextCursor":"${nextCursor}","hasMore":${hasMore}}`, true), nextCursor, hasMore };
}
