import type { Knex } from 'knex';

/**
 * An order has one version number (contract Order.versionNumber, and the deprecated `version`):
 * that of its latest completed change order, 0 until the first. `orders.version` counted every
 * change before; it is set from the change orders once, and from then on by recordChangeOrder.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE orders o SET version = COALESCE(
      (SELECT max(c.version_number) FROM change_orders c WHERE c.organization_id = o.organization_id AND c.order_id = o.id AND NOT c.draft), 0)
     WHERE o.version IS DISTINCT FROM COALESCE(
      (SELECT max(c.version_number) FROM change_orders c WHERE c.organization_id = o.organization_id AND c.order_id = o.id AND NOT c.draft), 0)`);
  await knex.raw(
    "COMMENT ON COLUMN orders.version IS 'API fields `versionNumber` and `version` (deprecated): the versionNumber of the latest completed change order, 0 until the first.'",
  );
}

export async function down(): Promise<void> {
  // The former counts are not kept; the column stays as it is.
}
