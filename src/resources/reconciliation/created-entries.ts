import type { Queryable } from '../../db/knex';
import { readObjectTexts } from '../../db/object-reads';
import type { ChangeEntry } from '../../feed/append';
import { CHANGE_EVENTS, type ChangeType, type FeedResource } from '../../feed/change-types';
import type { ReconciledSources } from './sources';

/**
 * Feed entries for objects a bulk write created without building them one by one (the admin
 * CLI's demo data): each `<resource>.created` with the object as its read builds it (the same
 * ResourceDef as the single read and the backfill, ResourceDeclarations.reconciled), one query
 * per resource.
 *
 * The resources are listed so that an object comes after the objects it points at (a vendor after
 * its location, an order after its job and vendor); any other comes last, by name.
 */
const FIRST: FeedResource[] = [
  'tax_code',
  'unit_of_measure',
  'user',
  'location',
  'vendor',
  'job',
  'group',
  'phase',
  'cost_category',
  'tag',
  'order',
  'item',
  'change_order',
  'bill_of_materials',
  'bom_item',
  'notification',
];

const hasCreated = (r: FeedResource) => (CHANGE_EVENTS[r] as readonly string[]).includes('created');

/** The reconciled resources whose creation the feed reports, in feed order. */
export const createdResources = (sources: ReconciledSources): FeedResource[] =>
  [...FIRST.filter((r) => sources.resources.includes(r)), ...sources.resources.filter((r) => !FIRST.includes(r))].filter(hasCreated);

/**
 * Reconciled resources the feed has no `created` event for (e.g. `invoice`, `release`): objects of
 * these written in bulk get their states from a backfill (requestBackfill) instead of entries.
 */
export const resourcesWithoutCreated = (sources: ReconciledSources): FeedResource[] => sources.resources.filter((r) => !hasCreated(r));

/** The ids of the organization's live objects of every resource in createdResources: taken before a bulk write, so createdEntries can tell its objects. */
export async function liveObjectIds(sources: ReconciledSources, db: Queryable, organizationId: string): Promise<Map<FeedResource, string[]>> {
  const ids = new Map<FeedResource, string[]>();
  for (const resource of createdResources(sources)) {
    const def = sources.defs[resource]!;
    const q = db({ [def.alias]: def.table }).where(`${def.alias}.organization_id`, organizationId);
    if (def.softDelete) q.whereNull(`${def.alias}.deleted_at`);
    ids.set(resource, await q.pluck(`${def.alias}.id`));
  }
  return ids;
}

/** A `<resource>.created` entry for every live object not among `before` (liveObjectIds), in feed order. */
export async function createdEntries(
  sources: ReconciledSources,
  db: Queryable,
  organizationId: string,
  before: Map<FeedResource, string[]>,
): Promise<ChangeEntry[]> {
  const entries: ChangeEntry[] = [];
  for (const resource of createdResources(sources)) {
    const old = before.get(resource) ?? [];
    const rows = await readObjectTexts(db, sources.defs[resource]!, organizationId, (q, id) => {
      if (old.length) q.whereRaw(`NOT (${id} = ANY(?::uuid[]))`, [old]);
    });
    const type = `${resource}.created` as ChangeType;
    for (const r of rows) entries.push({ type, resource, id: r.id, data: JSON.parse(r.json) });
  }
  return entries;
}
