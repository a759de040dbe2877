import type { DemoPart } from './context';
import { addItems, createOrder, removeItem, updateItem, updateOrder } from '../../src/resources/orders/store';
import { recordChangeOrder, snapshotOrder } from '../../src/resources/change-orders/store';
import { demoJobId, demoJobsiteId, demoVendorId, itemIds } from './purchasing-refs';
import { priceDemoOrders } from './prices';

/** An order with three change-order versions: two completed (one linked), one draft. */
export const seedChangeOrders: DemoPart = async (ctx) => {
  const { db, orgId, userId, remember } = ctx;
  const po = 'J-1042-031';
  const orderId = await createOrder(
    db,
    orgId,
    userId,
    {
      job_id: await demoJobId(ctx),
      vendor_id: await demoVendorId(ctx),
      delivery_location_id: await demoJobsiteId(ctx),
      purchase_order_number: po,
      title: 'Level 2 lighting fixtures',
      type: 'STANDARD',
      mode: 'ISSUE_PO',
      state: 'ACTIVE',
      need_by_date_day: '2026-11-20T00:00:00.000Z',
      need_by_window: 'AM',
      notes: 'Deliver to level 2 east stair.',
      shipping_cost: 85,
      distributor_contact_name: 'Dana Whitfield',
      distributor_contact_company: 'Ferguson Enterprises',
      distributor_contact_email: 'dana.whitfield@ferguson.example',
    },
    [
      { line_number: 1, description: '2x4 LED troffer, 4000K', quantity: 60, units_of_measure: 'EA', unit_price: 89.5 },
      { line_number: 2, description: '6 in. LED downlight, 3500K', quantity: 40, units_of_measure: 'EA', unit_price: 42 },
      { line_number: 3, description: 'Emergency egress fixture', quantity: 8, units_of_measure: 'EA', unit_price: 118 },
    ],
  );
  remember('order', po, orderId);
  // Priced before every snapshot, so the change orders carry the lines' prices.
  await priceDemoOrders(db, orgId, [orderId]);
  const items = await itemIds(ctx, orderId);
  const version = async (when: string, label: string, note: string, draft: boolean, change: () => Promise<unknown>) => {
    const before = (await snapshotOrder(db, orgId, orderId))!;
    await change();
    await priceDemoOrders(db, orgId, [orderId]);
    const after = (await snapshotOrder(db, orgId, orderId))!;
    return recordChangeOrder(db, orgId, orderId, { label, note, draft, createdById: userId, createdAt: when, before, after });
  };
  const co1 = await version('2026-11-08T14:00:00.000Z', 'CO-1 Added corridor fixtures', 'Architect ASI-07.', false, async () => {
    await updateItem(db, orgId, userId, items[1], { quantity: 72 });
    await addItems(db, orgId, userId, orderId, [
      { line_number: 4, description: '4 ft LED wraparound, corridor', quantity: 24, units_of_measure: 'EA', unit_price: 56.25 },
    ]);
  });
  await db('change_orders')
    .where({ organization_id: orgId, id: co1.id })
    .update({ integration_state: 'LINKED', integration_message: 'Exported to Vista as PO 1042-031 rev 1.' });
  await version('2026-11-12T09:45:00.000Z', 'CO-2 Downlights removed', 'Owner VE: downlights deleted, need-by moved.', false, async () => {
    await removeItem(db, orgId, userId, items[2]);
    await updateOrder(db, orgId, userId, orderId, { need_by_date_day: '2026-11-24T00:00:00.000Z', notes: null });
  });
  const co3 = await version('2026-11-15T11:30:00.000Z', 'CO-3 Emergency fixtures (draft)', 'Pending fire marshal review.', true, async () => {
    await updateItem(db, orgId, userId, items[3], { quantity: 12, unit_price: 112 });
  });
  await db('change_orders')
    .where({ organization_id: orgId, id: co3.id })
    .update({ integration_state: 'ERROR', integration_message: 'Draft change orders cannot be exported.' });
};
