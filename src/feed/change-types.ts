/**
 * Every resource the feed reports and the events it reports for each: the one list of change
 * types (`<resource>.<event>`). Feed entries are typed by it (an entry of a type not listed here
 * does not compile), `GET /changes?types=` and a webhook endpoint's `types` accept a resource of it
 * with an event of it (types.ts), and the contract lists the same (ChangeType.yaml;
 * test/unit/change-types.test.ts holds them equal).
 */
export const CHANGE_EVENTS = {
  bill_of_materials: ['created'],
  bom_item: ['created', 'updated', 'deleted'],
  change_order: ['created', 'integration_state_changed', 'deleted'],
  cost_category: ['created', 'updated', 'deleted'],
  delivery_receipt: ['integration_state_changed'],
  group: ['created', 'updated'],
  invoice: ['paid', 'integration_state_changed'],
  // No write operation changes these yet; they will report under this name.
  invoice_item: [],
  item: ['created', 'updated', 'deleted'],
  // `deleted`: jobs are never deleted through the API; a job deleted in the database (captures.ts) is.
  job: ['created', 'updated', 'purchase_order_counter_changed', 'deleted'],
  location: ['created', 'updated', 'deleted'],
  notification: ['created', 'updated'],
  order: ['created', 'updated', 'deleted', 'integration_state_changed'],
  order_tag: ['created', 'deleted'],
  phase: ['created', 'updated', 'deleted'],
  release: ['deleted'],
  requisition: ['state_changed'],
  tag: ['created', 'updated'],
  tax_code: ['created', 'updated', 'deleted'],
  unit_of_measure: ['created', 'updated'],
  user: ['created'],
  vendor: ['created', 'updated', 'deleted'],
  warehouse_request: [],
  webhook_endpoint: ['created', 'updated', 'deleted'],
} as const satisfies Record<string, readonly string[]>;

export type FeedResource = keyof typeof CHANGE_EVENTS;
/** The events of a resource (of any of them, for a union). */
export type ChangeEvent<R extends FeedResource> = (typeof CHANGE_EVENTS)[R][number];
export type ChangeType = { [R in FeedResource]: `${R}.${ChangeEvent<R>}` }[FeedResource];
/** Resources that have every event of `E`. */
export type ResourceWith<E extends string> = { [R in FeedResource]: [E] extends [ChangeEvent<R>] ? R : never }[FeedResource];

export const FEED_RESOURCES = Object.keys(CHANGE_EVENTS) as FeedResource[];
export const CHANGE_TYPES: readonly ChangeType[] = FEED_RESOURCES.flatMap((r) => CHANGE_EVENTS[r].map((e) => `${r}.${e}` as ChangeType));
