import type { Knex } from 'knex';

/**
 * Which objects of a resource show given objects of another (`via`) in their reads: the
 * condition a targeted rebuild (feed_object_refreshes, backfill.ts) narrows the resource's read
 * to, on the aliases of its ResourceDef (ResourceDeclarations.reconciled), given the changed
 * objects' ids. One per pair of src/feed/object-states.ts SHOWN_IN; a pair without one is rebuilt
 * whole.
 */
const SHOWING: Record<string, (ids: string[]) => [string, unknown[]]> = {
  'job group': (ids) => ['j.id IN (SELECT jg.job_id FROM job_groups jg WHERE jg.organization_id = j.organization_id AND jg.group_id = ANY(?::uuid[]))', [ids]],
  'item tax_code': (ids) => ['i.tax_code_id = ANY(?::uuid[])', [ids]],
  'order tax_code': (ids) => ['o.tax_code_id = ANY(?::uuid[])', [ids]],
  'item phase': (ids) => ['(i.phase_id = ANY(?::uuid[]) OR i.sub_job_id = ANY(?::uuid[]))', [ids, ids]],
  'cost_category phase': (ids) => ['cc.phase_id = ANY(?::uuid[])', [ids]],
  'item cost_category': (ids) => ['i.cost_category_id = ANY(?::uuid[])', [ids]],
  'invoice_item tax_code': (ids) => ['ii.tax_code_id = ANY(?::uuid[])', [ids]],
  'invoice_item phase': (ids) => ['ii.phase_id = ANY(?::uuid[])', [ids]],
  'invoice_item cost_category': (ids) => ['ii.cost_category_id = ANY(?::uuid[])', [ids]],
  'phase job': (ids) => ['ph.job_id = ANY(?::uuid[])', [ids]],
  'cost_category job': (ids) => ['cc.job_id = ANY(?::uuid[])', [ids]],
  'release location': (ids) => ['r.delivery_location_id = ANY(?::uuid[])', [ids]],
  'release item': (ids) => [
    'r.id IN (SELECT ri.release_id FROM release_items ri WHERE ri.organization_id = r.organization_id AND ri.item_id = ANY(?::uuid[]))',
    [ids],
  ],
  'release order': (ids) => ['r.order_id = ANY(?::uuid[])', [ids]],
};

/** Narrows a read of `resource` to the objects that show the `via` objects `ids`; undefined when the pair has no condition. */
export function showing(resource: string, via: string, ids: string[]): ((q: Knex.QueryBuilder) => void) | undefined {
  const condition = SHOWING[`${resource} ${via}`];
  if (!condition) return undefined;
  const [sql, bindings] = condition(ids);
  return (q) => q.whereRaw(sql, bindings as Knex.RawBinding[]);
}
