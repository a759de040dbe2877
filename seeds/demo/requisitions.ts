import type { DemoPart } from './context';
import { billingBasics } from './billing-basics';

const ZERO = { qty_added_to_po: 0, qty_requested: 0, qty_rejected_by_purchasing: 0, qty_added_to_warehouse_request: 0, qty_acknowledged_by_purchasing: 0 };

export const seedRequisitions: DemoPart = async (ctx) => {
  const { db, orgId, remember } = ctx;
  const b = await billingBasics(ctx);
  const [field, agent] = [b.users[1] ?? b.users[0], b.users[0]];
  const base = { organization_id: orgId, job_id: b.jobs[0], ordering_agent_id: agent, created_by_id: field, delivery_location_id: b.jobsiteId };
  const rows = [
    { identifier: 'REQ-2041-0001', state: 'DRAFT', title: 'Level 3 hangers and strut', need_by_date_category: 'ASAP', need_by_window: 'Anytime (7am - 5pm)' },
    {
      identifier: 'REQ-2041-0002',
      state: 'OPEN',
      title: 'Level 2 rough-in copper',
      need_by_date_category: 'DATE',
      need_by_date_day: '2026-11-10T00:00:00Z',
      need_by_window: 'Morning (7am - 11am)',
      sent_at: '2026-11-02T14:20:00Z',
      notes: 'Deliver to the north gate; forklift on site.',
    },
    {
      identifier: 'REQ-2041-0003',
      state: 'IN_REVIEW',
      title: 'Fire caulk and sleeves',
      need_by_date_category: 'DATE',
      need_by_date_day: '2026-11-14T00:00:00Z',
      need_by_window: 'Afternoon (12pm - 4pm)',
      sent_at: '2026-11-03T08:05:00Z',
    },
    {
      identifier: 'REQ-2041-0004',
      state: 'ACKNOWLEDGED',
      title: 'Framing studs, east wing',
      need_by_date_category: 'HOLD_FOR_RELEASE',
      need_by_window: 'Anytime (7am - 5pm)',
      sent_at: '2026-11-03T09:40:00Z',
    },
    {
      identifier: 'REQ-2041-0005',
      state: 'PARTIALLY_FULFILLED',
      title: 'Drywall, level 1',
      need_by_date_category: 'DATE',
      need_by_date_day: '2026-11-06T00:00:00Z',
      need_by_window: 'Early morning (6am - 8am)',
      sent_at: '2026-10-30T15:00:00Z',
      scheduled_at: '2026-10-30T14:00:00Z',
    },
    {
      identifier: 'REQ-2041-0006',
      state: 'CLOSED',
      title: 'Temporary power cable',
      need_by_date_category: 'ASAP',
      need_by_window: 'Anytime (7am - 5pm)',
      sent_at: '2026-10-20T10:00:00Z',
      manually_closed_at: '2026-10-28T16:30:00Z',
      vendor_contact_id: 'vc-graybar-0192',
    },
    {
      identifier: 'REQ-2057-0001',
      state: 'OPEN',
      title: 'Site safety, phase 1',
      job_id: b.jobs[1],
      need_by_date_category: 'ASAP',
      need_by_window: 'Anytime (7am - 5pm)',
      sent_at: '2026-11-04T07:30:00Z',
    },
  ];
  const ids = (await db('requisitions')
    .insert(rows.map((r) => ({ ...base, ...r })))
    .returning(['id', 'identifier'])) as { id: string; identifier: string }[];
  for (const r of ids) remember('requisition', r.identifier, r.id);
  const id = (ident: string) => ids.find((r) => r.identifier === ident)!.id;
  // A deleted one: never listed.
  await db('requisitions').insert({
    ...base,
    identifier: 'REQ-2041-0007',
    state: 'DRAFT',
    title: 'Duplicate of REQ-2041-0002',
    deleted_at: db.fn.now(),
    deleted_by_id: field,
  });

  const [order] = b.orders;
  const items = [
    {
      requisition_id: id('REQ-2041-0002'),
      line_number: 1,
      description: '3/4 in. Type L copper pipe, 20 ft',
      quantity: 40,
      units_of_measure: 'EA',
      manufacturer_part_number: 'LH04020',
      universal_product_code: '039923040209',
      state: 'ADDED_TO_PO',
      line_item_id: order.itemIds[0],
      purchase_order_id: order.id,
      quantity_delivered: 24,
      allow_substitution: true,
      integration_data: JSON.stringify({ erpLineRef: 'PR-88123-1' }),
      ...ZERO,
      qty_requested: 40,
      qty_added_to_po: 40,
      qty_acknowledged_by_purchasing: 40,
    },
    {
      requisition_id: id('REQ-2041-0002'),
      line_number: 2,
      description: '3/4 in. copper 90 deg elbow, box of 25',
      quantity: 12,
      units_of_measure: 'BOX',
      state: 'PARTIALLY_ADDED_TO_PO',
      line_item_id: order.itemIds[1],
      purchase_order_id: order.id,
      ...ZERO,
      qty_requested: 12,
      qty_added_to_po: 8,
      qty_acknowledged_by_purchasing: 12,
    },
    {
      requisition_id: id('REQ-2041-0002'),
      line_number: 3,
      description: '3/4 in. copper tee',
      quantity: 30,
      units_of_measure: 'EA',
      state: 'REJECTED',
      rejection_reason: 'DUPLICATE',
      rejection_message: 'Already ordered on PO 2041-0031.',
      ...ZERO,
      qty_requested: 30,
      qty_rejected_by_purchasing: 30,
    },
    {
      requisition_id: id('REQ-2041-0003'),
      line_number: 1,
      description: '3M FD 150+ fire caulk, 10.1 oz',
      quantity: 24,
      units_of_measure: 'EA',
      state: 'UNPROCESSED',
      catalog_id: 'CAT-3M-FD150',
      ...ZERO,
      qty_requested: 24,
    },
    {
      requisition_id: id('REQ-2041-0004'),
      line_number: 1,
      description: '2x4 SPF stud, 8 ft',
      quantity: 400,
      units_of_measure: 'EA',
      state: 'ACKNOWLEDGED',
      notes: 'Straight stock only.',
      ...ZERO,
      qty_requested: 400,
      qty_acknowledged_by_purchasing: 400,
    },
    {
      requisition_id: id('REQ-2041-0005'),
      line_number: 1,
      description: '1/2 in. drywall, 4x8 sheet',
      quantity: 120,
      units_of_measure: 'EA',
      state: 'ADDED_TO_WAREHOUSE_REQUEST',
      quantity_delivered: 60,
      ...ZERO,
      qty_requested: 120,
      qty_added_to_warehouse_request: 120,
    },
    {
      requisition_id: id('REQ-2041-0005'),
      line_number: 2,
      description: 'Drywall screws #6 x 1-1/4 in., 5 lb box',
      quantity: 10,
      units_of_measure: 'BOX',
      state: 'UNPROCESSED',
      ...ZERO,
      qty_requested: 10,
    },
    {
      requisition_id: id('REQ-2041-0001'),
      line_number: 1,
      description: '1-5/8 in. strut channel, 10 ft',
      quantity: 50,
      units_of_measure: 'EA',
      state: 'UNPROCESSED',
      ...ZERO,
      qty_requested: 50,
    },
    {
      requisition_id: id('REQ-2041-0006'),
      line_number: 1,
      description: '6/3 SOOW cable, 250 ft reel',
      quantity: 2,
      units_of_measure: 'EA',
      state: 'ADDED_TO_PO',
      quantity_delivered: 2,
      ...ZERO,
      qty_requested: 2,
      qty_added_to_po: 2,
      qty_acknowledged_by_purchasing: 2,
    },
    {
      requisition_id: id('REQ-2057-0001'),
      line_number: 1,
      description: 'Orange safety fence, 4x100 ft',
      quantity: 6,
      units_of_measure: 'ROLL',
      state: 'ADDED_TO_WAREHOUSE_REQUEST',
      ...ZERO,
      qty_requested: 6,
      qty_added_to_warehouse_request: 6,
    },
  ];
  await db('requisition_items').insert(items.map((i) => ({ ...i, organization_id: orgId, created_by_id: field })));
};
