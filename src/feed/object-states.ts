import { canonicalForm, type FormOf } from '../db/object-digest';
import type { Queryable } from '../db/knex';
import type { ChangeEntry } from './append';
import { type Origin, SYSTEM_ORIGIN } from './origin';

/**
 * Each live object's current state (table `feed_objects`, migration 20261126000000): the object as
 * its single read returns it, its digest (src/db/object-digest.ts) and the feed position of its
 * last change. Kept by the feed's append statement, in the same statement as the entries, so the
 * states and the feed head always agree in any snapshot.
 */
export interface ObjectState {
  /** The object as its single read returns it (keys in RFC 8785 order). */
  data: unknown;
  /** canonicalForm(data).digest (src/db/object-digest.ts). */
  digest: string;
  /** Feed position of the entry that last changed it (a backfilled object: the head when backfilled). */
  position: number;
}

/**
 * The stored states of some objects of one resource, by id, in one query. An id without a state
 * is absent: no such live object, or one whose backfill has not run yet (src/feed/backfill.ts).
 */
export async function readObjectStates(db: Queryable, organizationId: string, resource: string, ids: string[]): Promise<Map<string, ObjectState>> {
  const states = new Map<string, ObjectState>();
  if (!ids.length) return states;
  const { rows } = await db.raw(`SELECT id, data, digest, position FROM feed_objects WHERE organization_id = ? AND resource = ? AND id = ANY(?::uuid[])`, [
    organizationId,
    resource,
    ids,
  ]);
  for (const r of rows as { id: string; data: unknown; digest: string; position: number }[]) {
    states.set(r.id, { data: r.data, digest: r.digest, position: Number(r.position) });
  }
  return states;
}

/** The top-level bucket of an object: the first hex digit of its id (GET /reconciliation/{resource}). */
export const bucketOf = (id: string): string => id.charAt(0).toLowerCase();

/**
 * The distinct top-level buckets (resource, first hex digit) of some objects: those whose versions
 * (feed_object_bucket_versions, migration 20261126043000) a write of their states bumps.
 */
export function touchedBuckets(objects: { resource: string; id: string }[]): { resource: string; prefix: string }[] {
  const keys = new Set(objects.map((o) => `${o.resource} ${bucketOf(o.id)}`));
  return [...keys].map((k) => {
    const [resource, prefix] = k.split(' ');
    return { resource, prefix };
  });
}

/**
 * What an entry does to its object's state: `null` removes it (a deletion), an object replaces it,
 * `undefined` leaves it (an entry that is not one object's state).
 */
function stateOf(entry: ChangeEntry): unknown {
  // An order's tag names the pair (order, tag) by the tag's id: not an object of its own.
  if (entry.resource === 'order_tag') return undefined;
  if (entry.type.endsWith('.deleted')) return null;
  // The reply of POST /jobs/{jobIdOrCode}/nextPurchaseOrderNumber is the job plus its numbering, which the job's read does not show.
  if (entry.type === 'job.purchase_order_counter_changed') {
    const { hasPhaseCodes: _p, nextPurchaseOrderCounter: _n, ...job } = entry.data as Record<string, unknown>;
    return job;
  }
  return entry.data;
}

/**
 * Objects whose read shows another object's fields without a feed entry of their own when that
 * object changes (the feed gives its own entries only to the locations listing a renamed job or
 * vendor, and to the vendors embedding a changed location: their declarations, src/resources/locations, jobs, vendors). A change of a resource
 * on the left owes the objects of the resources on the right that show it a rebuild of their
 * states from their reads before their digests are answered again
 * (src/resources/reconciliation/backfill.ts): a job's `groups`; an item's `taxCode`, `phase`,
 * `subJob`, `costCategory`; an order's `taxCode`; an invoice item's `taxCode`, `phaseCode` and
 * `costCategory` (codes only); a phase's and a cost category's `jobCode`, a cost category's
 * `phaseCode`; a release's `deliveryLocation`, the items of its `releaseItems` and its order's
 * `purchaseOrderNumber` (a release has no `updated` event, an invoice item no event at all: their
 * states follow their reads only through these rebuilds).
 * `fields`: the only fields of the changed object they show (an entry whose changedFields has
 * none of them owes nothing: renaming a job leaves its phases as they are); without, any change
 * (even of `updatedAt`, which a job's `groups` show) owes the rebuild.
 */
const SHOWN_IN: Partial<Record<string, readonly { resource: string; fields?: readonly string[] }[]>> = {
  group: [{ resource: 'job' }],
  tax_code: [
    { resource: 'item', fields: ['code', 'taxPercent'] },
    { resource: 'order', fields: ['code', 'taxPercent'] },
    { resource: 'invoice_item', fields: ['code'] },
  ],
  phase: [
    { resource: 'item', fields: ['code', 'description'] },
    { resource: 'cost_category', fields: ['code'] },
    { resource: 'invoice_item', fields: ['code'] },
  ],
  cost_category: [
    { resource: 'item', fields: ['code', 'description'] },
    { resource: 'invoice_item', fields: ['code'] },
  ],
  job: [
    { resource: 'phase', fields: ['code'] },
    { resource: 'cost_category', fields: ['code'] },
  ],
  location: [{ resource: 'release', fields: ['name'] }],
  item: [{ resource: 'release' }],
  order: [{ resource: 'release', fields: ['purchaseOrderNumber'] }],
};

/**
 * What a transaction's entries owe the objects that show their objects (SHOWN_IN): per
 * (resource, via) the ids of the changed `via` objects whose showing objects are to be rebuilt
 * (feed_object_refreshes); a deleted object (whose references may be gone already) owes its
 * showing resources a whole backfill (feed_object_backfills). An object the API creates is shown
 * nowhere yet; one the capture finds created (`restored`: changes made in the database) may be a
 * row brought back (`deleted_at` set to NULL again), whose showing objects reappear with it.
 */
export function owedRebuilds(
  entries: ChangeEntry[],
  { restored = false }: { restored?: boolean } = {},
): { whole: string[]; refreshes: { resource: string; via: string; ids: string[] }[] } {
  const whole = new Set<string>();
  const refreshes = new Map<string, { resource: string; via: string; ids: Set<string> }>();
  for (const e of entries) {
    if (e.type.endsWith('.created') && !restored) continue;
    for (const shown of SHOWN_IN[e.resource] ?? []) {
      if (e.type.endsWith('.deleted')) whole.add(shown.resource);
      else if (!shown.fields || !e.changedFields || e.changedFields.some((f) => shown.fields!.includes(f))) {
        const key = `${shown.resource} ${e.resource}`;
        if (!refreshes.has(key)) refreshes.set(key, { resource: shown.resource, via: e.resource, ids: new Set() });
        refreshes.get(key)!.ids.add(e.id);
      }
    }
  }
  return { whole: [...whole], refreshes: [...refreshes.values()].map((r) => ({ ...r, ids: [...r.ids] })) };
}

/** An entry's `data` as the feed stores it: its RFC 8785 text (and that text's digest). */
export type StoredForm = { text: string; digest: string };

/**
 * Each entry's `data` in the form the feed stores it, the canonical (RFC 8785) text: the same
 * object in fewer bytes than its read gave it and in one order of keys, and the text an object's
 * state needs anyway (its digest is that text's). The append statement sends each object once:
 * the states reuse their entries' texts (stateCtes). `formOf`: the write's own, which already holds
 * the form of an object its ETag was computed from.
 */
export function storedForms(entries: ChangeEntry[], formOf: FormOf = canonicalForm): StoredForm[] {
  return entries.map((e) => (e.data === undefined ? { text: 'null', digest: '' } : formOf(e.data)));
}

/**
 * The part of the feed's append statement (append.ts) that keeps the states: data-modifying CTEs
 * after `head` (they read it, so they run after its row lock is taken) and their bindings, which
 * come after every other binding of the statement. The statement's `input` CTE holds the entries
 * (`ord`, `resource`, `id`, `data` as `forms` gives it): a state that is its entry's data takes
 * the entry's text from there, so each object travels once. Per object only its last entry of the
 * transaction counts (a row may be changed once per statement), at that entry's position. The
 * versions of the top-level buckets whose states change are bumped, once per bucket (the cached
 * bucket digests of GET /reconciliation/{resource}, src/resources/reconciliation/bucket-cache.ts).
 * The objects whose reads show a changed object are marked as owed a rebuild (owedRebuilds).
 */
export function stateCtes(
  organizationId: string,
  entries: ChangeEntry[],
  forms: StoredForm[],
  origin: Origin = SYSTEM_ORIGIN,
): { sql: string; bindings: (string | number)[] } {
  const last = new Map<string, { ord: number; resource: string; id: string; state: unknown }>();
  entries.forEach((e, i) => {
    const state = stateOf(e);
    if (state !== undefined) last.set(`${e.resource} ${e.id}`, { ord: i + 1, resource: e.resource, id: e.id, state });
  });
  const puts = [...last.values()].filter((s) => s.state !== null);
  const drops = [...last.values()].filter((s) => s.state === null);
  // A state other than its entry's data (a counter change's job) travels as its own text.
  const own = puts.map((s) => (s.state === entries[s.ord - 1].data ? undefined : canonicalForm(s.state)));
  const buckets = touchedBuckets([...last.values()]);
  const owed = owedRebuilds(entries, { restored: origin.credentialType === 'database' });
  return {
    sql: `, put_states AS (
         INSERT INTO feed_objects AS f (organization_id, resource, id, position, digest, data)
         SELECT ?, e.resource, e.id::uuid, head.position - ? + e.ord, s.digest, coalesce(s.data::json, e.data)
           FROM head,
                ROWS FROM (json_array_elements_text(?::json), json_array_elements_text(?::json), json_array_elements_text(?::json)) AS s(ord, digest, data)
                JOIN input e ON e.ord = s.ord::bigint
         ON CONFLICT (organization_id, resource, id) DO UPDATE SET position = EXCLUDED.position, digest = EXCLUDED.digest, data = EXCLUDED.data
       ), drop_states AS (
         DELETE FROM feed_objects f
          USING head, ROWS FROM (json_array_elements_text(?::json), json_array_elements_text(?::json)) AS d(resource, id)
          WHERE f.organization_id = ? AND f.resource = d.resource AND f.id = d.id::uuid
       ), bumped_buckets AS (
         INSERT INTO feed_object_bucket_versions AS v (organization_id, resource, prefix, version)
         SELECT ?, k.resource, k.prefix, 1 FROM head, ROWS FROM (json_array_elements_text(?::json), json_array_elements_text(?::json)) AS k(resource, prefix)
         ON CONFLICT (organization_id, resource, prefix) DO UPDATE SET version = v.version + 1
       ), owed_backfills AS (
         INSERT INTO feed_object_backfills AS b (organization_id, resource)
         SELECT ?, r FROM head, json_array_elements_text(?::json) AS r
         ON CONFLICT (organization_id, resource) DO UPDATE SET requested_at = clock_timestamp()
       ), owed_refreshes AS (
         INSERT INTO feed_object_refreshes AS r (organization_id, resource, via, ids)
         SELECT ?, x.resource, x.via, ARRAY(SELECT json_array_elements_text(x.ids)::uuid)
           FROM head, json_to_recordset(?::json) AS x(resource text, via text, ids json)
         ON CONFLICT (organization_id, resource, via)
           DO UPDATE SET ids = ARRAY(SELECT DISTINCT u FROM unnest(r.ids || EXCLUDED.ids) AS u), requested_at = clock_timestamp()
       )`,
    bindings: [
      organizationId,
      entries.length,
      JSON.stringify(puts.map((s) => s.ord)),
      JSON.stringify(puts.map((s, i) => (own[i] ?? forms[s.ord - 1]).digest)),
      JSON.stringify(own.map((o) => o?.text ?? null)),
      JSON.stringify(drops.map((s) => s.resource)),
      JSON.stringify(drops.map((s) => s.id)),
      organizationId,
      organizationId,
      JSON.stringify(buckets.map((b) => b.resource)),
      JSON.stringify(buckets.map((b) => b.prefix)),
      organizationId,
      JSON.stringify(owed.whole),
      organizationId,
      JSON.stringify(owed.refreshes),
    ],
  };
}
