import type { DemoPart } from './context';
import { createOrder } from '../../src/resources/orders/store';
import { cancelRelease, createRelease } from '../../src/resources/releases/store';
import { demoJobId, demoJobsiteId, demoVendorId, itemIds } from './purchasing-refs';

/** A hold-for-release (buyout) order with active and cancelled releases, priced per C, M and EA. */
export const seedReleases: DemoPart = async (ctx) => {
  const { db, orgId, userId, remember } = ctx;
  const locationId = await demoJobsiteId(ctx);
  const po = 'J-1042-HFR-01';
  const orderId = await createOrder(
    db,
    orgId,
    userId,
    {
      job_id: await demoJobId(ctx),
      vendor_id: await demoVendorId(ctx),
      delivery_location_id: locationId,
      purchase_order_number: po,
      title: 'Electrical rough-in buyout, levels 1-3',
      type: 'HOLD_FOR_RELEASE',
      mode: 'PRE_ACKNOWLEDGED',
      state: 'ACTIVE',
      need_by_window: 'AMEarly',
      distributor_contact_name: 'Dana Whitfield',
      distributor_contact_company: 'Ferguson Enterprises',
      distributor_contact_email: 'dana.whitfield@ferguson.example',
    },
    [
      {
        line_number: 1,
        description: '3/4 in. EMT conduit, 10 ft (price per hundred feet)',
        quantity: 12000,
        units_of_measure: 'C',
        unit_price: 48.5,
        manufacturer: 'Allied Tube & Conduit',
        manufacturer_part_number: '101543',
      },
      {
        line_number: 2,
        description: '12 AWG THHN copper wire, black (price per thousand feet)',
        quantity: 25000,
        units_of_measure: 'M',
        unit_price: 412.5,
        unit_discount: 10,
        manufacturer: 'Southwire',
      },
      { line_number: 3, description: '1/2 in. x 6 in. wedge anchors', quantity: 500, units_of_measure: 'EA', unit_price: 1.85 },
      { line_number: 4, description: '1-5/8 in. strut channel, 10 ft (price on release)', quantity: 200, units_of_measure: 'EA', unit_price: null },
    ],
  );
  remember('order', po, orderId);
  const items = await itemIds(ctx, orderId);
  await createRelease(db, orgId, {
    orderId,
    releaseNumber: `${po}-R1`,
    needByDateDay: '2026-11-18T00:00:00.000Z',
    needByWindow: 'AMEarly',
    notes: 'Level 1 slab conduit and wire.',
    additionalNotes: 'Call Marcus Reyes 30 minutes before arrival.',
    deliveryLocationId: locationId,
    createdById: userId,
    createdAt: '2026-11-02T16:20:00.000Z',
    items: [
      { itemId: items[1], quantityReleased: 2400 },
      { itemId: items[2], quantityReleased: 5000 },
    ],
  });
  await createRelease(db, orgId, {
    orderId,
    releaseNumber: `${po}-R2`,
    needByWindow: 'PM',
    notes: 'Anchors and strut when the deck is poured; date to follow.',
    createdById: userId,
    createdAt: '2026-11-05T10:00:00.000Z',
    items: [
      { itemId: items[3], quantityReleased: 150, backorderQuantity: 50 },
      { itemId: items[4], quantityReleased: 40 },
    ],
  });
  const cancelled = await createRelease(db, orgId, {
    orderId,
    releaseNumber: `${po}-R3`,
    needByDateDay: '2026-11-20T00:00:00.000Z',
    needByWindow: 'AM',
    deliveryLocationId: locationId,
    createdById: userId,
    createdAt: '2026-11-06T08:30:00.000Z',
    items: [{ itemId: items[1], quantityReleased: 1200 }],
  });
  await cancelRelease(db, orgId, cancelled, 'Pour delayed by rain; merged into R1.');
};
