import type { DemoPart } from './context';
import { billingBasics } from './billing-basics';

export const seedWarehouseRequests: DemoPart = async (ctx) => {
  const { db, orgId, remember, ref } = ctx;
  const b = await billingBasics(ctx);
  const base = { organization_id: orgId, job_id: b.jobs[0], location_id: b.warehouseId, created_by_id: b.users[1] ?? b.users[0] };
  const rows = [
    { identifier: 'WR-2041-0001', state: 'ACKNOWLEDGED', need_by_date_day: '2026-11-05T00:00:00Z' },
    { identifier: 'WR-2041-0002', state: 'SENT', need_by_date_day: '2026-11-12T00:00:00Z' },
    { identifier: 'WR-2057-0001', state: 'DRAFT', need_by_date_day: '2026-11-18T00:00:00Z', job_id: b.jobs[1] },
  ];
  const ids = (await db('warehouse_requests')
    .insert(rows.map((r) => ({ ...base, ...r })))
    .returning(['id', 'identifier'])) as { id: string; identifier: string }[];
  for (const r of ids) remember('warehouseRequest', r.identifier, r.id);
  const [ack, sent, draft] = ids.map((r) => r.id);
  // Every line comes from a requisition of its job (WarehouseRequestItem.requisitionId, as the spec has it).
  const drywallReq = ref('requisition', 'REQ-2041-0005');
  const framingReq = ref('requisition', 'REQ-2041-0004');
  const hangersReq = ref('requisition', 'REQ-2041-0001');
  const safetyReq = ref('requisition', 'REQ-2057-0001');
  const items = [
    {
      warehouse_request_id: ack,
      line_number: 1,
      state: 'SHIPPED',
      description: '1/2 in. drywall, 4x8 sheet',
      quantity: 60,
      picked_quantity: 60,
      uom: 'EA',
      sku: 'DW-050-48',
      upc: '049700251018',
      mpn: 'USG-050',
      requisition_id: drywallReq,
    },
    {
      warehouse_request_id: ack,
      line_number: 2,
      state: 'PICKED',
      description: '1/2 in. drywall, 4x8 sheet (second drop)',
      quantity: 60,
      picked_quantity: 60,
      uom: 'EA',
      sku: 'DW-050-48',
      requisition_id: drywallReq,
    },
    {
      warehouse_request_id: sent,
      line_number: 1,
      state: 'PARTIAL_PICK',
      description: '2x4 SPF stud, 8 ft',
      quantity: 400,
      picked_quantity: 260,
      uom: 'EA',
      sku: 'LUM-SPF-2408',
      mpn: 'SPF248',
      notes: 'Straight stock only.',
      requisition_id: framingReq,
    },
    {
      warehouse_request_id: sent,
      line_number: 2,
      state: 'REQUESTED',
      description: 'Simpson A35 framing angle',
      quantity: 200,
      uom: 'EA',
      sku: 'HW-A35',
      upc: '044315351002',
      mpn: 'A35',
      requisition_id: framingReq,
    },
    {
      warehouse_request_id: sent,
      line_number: 3,
      state: 'UNAVAILABLE',
      description: '3/8 in. wedge anchor, 3 in.',
      quantity: 150,
      uom: 'EA',
      sku: 'ANC-38-3',
      notes: 'Out of stock at the yard; order from vendor.',
      requisition_id: hangersReq,
    },
    {
      warehouse_request_id: sent,
      line_number: 4,
      state: 'CANCELLED',
      description: 'Blue tarp 20x30',
      quantity: 4,
      uom: 'EA',
      sku: 'GEN-TARP-2030',
      requisition_id: framingReq,
    },
    {
      warehouse_request_id: draft,
      line_number: 1,
      state: 'DRAFT',
      description: 'Orange safety fence, 4x100 ft',
      quantity: 6,
      uom: 'ROLL',
      sku: 'SAF-FENCE-4100',
      requisition_id: safetyReq,
    },
  ];
  await db('warehouse_request_items').insert(items.map((i) => ({ ...i, organization_id: orgId, created_by_id: base.created_by_id })));
};
