import type { DemoContext, DemoPart } from './context';
import { ItemWrite, OrderWrite, addItems, createOrder, setIntegrationState, updateItem, updateOrder } from '../../src/resources/orders/store';
import { pricePerFactor } from '../../src/resources/orders/pricing';
import { repriceItems } from '../../src/resources/orders/authoring';
import { recordChangeOrder, snapshotOrder } from '../../src/resources/change-orders/store';
import { createRelease } from '../../src/resources/releases/store';

/**
 * Orders of every type, mode, state, delivery window, received state and integration state, with
 * items priced per each, per hundred (C) and per thousand (M), with and without prices and
 * discounts; attachments, order tags and notifications of both types. Jobs, vendors and
 * locations come from earlier parts; the ones this part needs are created when missing.
 */
async function findOrInsert(ctx: DemoContext, table: string, match: Record<string, unknown>, row: Record<string, unknown>): Promise<string> {
  const found = await ctx
    .db(table)
    .where({ organization_id: ctx.orgId, ...match })
    .first('id');
  if (found) return found.id;
  const [r] = await ctx
    .db(table)
    .insert({ organization_id: ctx.orgId, ...match, ...row })
    .returning('id');
  return r.id;
}

async function optionalId(ctx: DemoContext, table: string, match: Record<string, unknown>): Promise<string | null> {
  const found = await ctx
    .db(table)
    .where({ organization_id: ctx.orgId, ...match })
    .first('id');
  return found?.id ?? null;
}

export const seedPurchasing: DemoPart = async (ctx) => {
  const { db, orgId, userId, remember } = ctx;
  await db('organizations').where({ id: orgId }).update({ header_custom_field_name: 'Owner cost code' });

  const job = await findOrInsert(ctx, 'jobs', { code: 'J-1042' }, { name: 'Riverside Medical Office Building' });
  const ferguson = await findOrInsert(ctx, 'vendors', { code: 'V-FERGUSON' }, { name: 'Ferguson Enterprises' });
  const graybar = await findOrInsert(ctx, 'vendors', { code: 'V-GRAYBAR' }, { name: 'Graybar Electric' });
  const jobsite = await findOrInsert(
    ctx,
    'locations',
    { name: 'Riverside MOB jobsite' },
    { type: 'Jobsite', address_line1: '2400 Riverside Dr', city: 'Sacramento', state: 'CA', zipcode: '95818' },
  );
  const gl = {
    mat: await findOrInsert(ctx, 'gl_codes', { code: '5100-MAT' }, { description: 'Job materials' }),
    rent: await findOrInsert(ctx, 'gl_codes', { code: '5300-RENT' }, { description: 'Equipment rental' }),
  };
  const costType = await findOrInsert(ctx, 'cost_types', { code: 'M' }, { description: 'Material cost' });
  await findOrInsert(ctx, 'cost_types', { code: 'E' }, { description: 'Equipment cost' });
  const rebarCode = await findOrInsert(ctx, 'item_codes', { code: 'REBAR-4' }, { description: 'Reinforcing bar #4, grade 60' });
  const conduitCode = await findOrInsert(ctx, 'item_codes', { code: 'EMT-3/4' }, { description: 'EMT conduit 3/4 in.' });
  const taxCa = ctx.ref('taxCode', 'TX-CA');
  const phase = await optionalId(ctx, 'phases', { code: '03-300' });
  const costCategory = await optionalId(ctx, 'cost_categories', { code: 'MAT' });
  const uom = (code: string) => ctx.ref('unitOfMeasure', code);

  const line = (
    n: number,
    description: string,
    quantity: number,
    unit: string | null,
    unitPrice: number | null,
    extra: Record<string, unknown> = {},
    discount?: number,
  ): ItemWrite => ({
    line_number: n,
    description,
    quantity,
    extended_quantity: quantity,
    units_of_measure: unit,
    units_of_measure_id: unit ? uom(unit) : null,
    requested_uom: unit,
    pricing_uom: unit,
    extended_uom: unit,
    unit_price: unitPrice,
    scaled_unit_price: unitPrice === null ? null : unitPrice / pricePerFactor(unit),
    unit_discount: discount ?? null,
    tax_code_id: taxCa,
    gl_code_id: gl.mat,
    cost_type_id: costType,
    phase_id: phase,
    cost_category_id: costCategory,
    need_by_date: '2026-12-08T15:00:00.000Z',
    ...extra,
  });

  const base: OrderWrite = {
    job_id: job,
    delivery_location_id: jobsite,
    tax_code_id: taxCa,
    gl_code_id: gl.mat,
    distributor_contact_email: 'orders@ferguson.example',
    distributor_contact_company: 'Ferguson Enterprises',
  };
  const orders: {
    po: string;
    order: OrderWrite;
    items: ItemWrite[];
    integration?: [Parameters<typeof setIntegrationState>[3], string | null];
    changeAfterLink?: boolean;
  }[] = [
    {
      po: 'J-1042-0001',
      order: {
        ...base,
        vendor_id: ferguson,
        title: 'Slab-on-grade rebar and mesh',
        type: 'STANDARD',
        mode: 'ISSUE_PO',
        state: 'ACTIVE',
        need_by_window: 'AM',
        need_by_date_day: '2026-12-08T00:00:00.000Z',
        received_state: 'PARTIALLY_RECEIVED',
        discount: 150,
        shipping_cost: 85,
        field_contact_name: 'Marcus Reed',
        field_contact_phone: '+1 916 555 0142',
        delivery_instructions: 'North gate; call 30 minutes ahead.',
        distributor_contact_name: 'Dana Whitfield',
        header_custom_field_value: 'OC-03-300',
        tax_exempt: false,
        custom_column_value: 'Level 1 slab',
      },
      items: [
        line(
          1,
          '#4 rebar, grade 60, 20 ft',
          1200,
          'C',
          86.5,
          {
            item_code_id: rebarCode,
            manufacturer: 'Nucor',
            manufacturer_part_number: 'RB4-G60-20',
            vendor_part_number: 'FRG-RB4-20',
            universal_product_code: '012345678905',
          },
          2.5,
        ),
        line(2, '6x6 W2.9xW2.9 welded wire mesh, 8x20 ft sheet', 40, 'EA', 42.75, { item_code_text: 'MESH-6X6', vendor_part_number: 'FRG-WWM-820' }),
        line(3, 'Rebar tie wire, 16 ga, 3.5 lb coil', 24, 'EA', null, {
          notes: 'Price on delivery',
          backorder_quantity: 12,
          backorder_lead_time: '2026-12-15T00:00:00.000Z',
        }),
      ],
      integration: ['LINKED', 'Synced as ERP PO 4500012'],
    },
    {
      po: 'J-1042-0002',
      order: {
        ...base,
        vendor_id: graybar,
        title: 'Electrical rough-in package',
        type: 'MAJOR',
        mode: 'PRE_ACKNOWLEDGED',
        state: 'FINALIZING',
        need_by_window: 'ASAP',
        need_by_date_day: '2026-12-01T00:00:00.000Z',
        header_custom_field_value: 'OC-26-050',
        tax_exempt: true,
        distributor_contact_company: 'Graybar Electric',
        distributor_contact_email: 'quotes@graybar.example',
      },
      items: [
        line(1, 'EMT conduit 3/4 in. x 10 ft', 2500, 'C', 64, { item_code_id: conduitCode, vendor_part_number: 'GB-EMT34' }),
        line(2, 'THHN 12 AWG copper wire', 5000, 'M', 412.5, { vendor_part_number: 'GB-THHN12' }, 5),
        line(3, 'Single-gang device box', 180, 'EA', 3.18, {}, 10),
      ],
      integration: ['ERROR', 'Vendor V-GRAYBAR is not mapped to an ERP supplier.'],
    },
    {
      po: 'J-1042-0003',
      order: {
        ...base,
        vendor_id: null,
        title: 'Curtain wall anchors (request for quote)',
        type: 'STANDARD',
        mode: 'REQUEST_FOR_QUOTE',
        state: 'BID_ACTIVE',
        need_by_window: 'UNSPECIFIED',
        header_custom_field_value: 'OC-08-440',
      },
      items: [line(1, 'Curtain wall anchor clip, galvanized', 600, 'EA', null), line(2, 'Stainless anchor bolt 1/2 x 4 in.', 1200, 'C', null)],
    },
    {
      po: 'J-1042-0004',
      order: {
        ...base,
        vendor_id: null,
        title: 'Roof drains (cancelled quote)',
        type: 'STANDARD',
        mode: 'REQUEST_FOR_QUOTE',
        state: 'BID_CANCELLED',
        need_by_window: 'PMLate',
      },
      items: [line(1, 'Cast iron roof drain, 4 in.', 12, 'EA', null)],
    },
    {
      po: 'J-1042-0005',
      order: {
        ...base,
        vendor_id: ferguson,
        title: 'Plumbing buyout: copper and fittings',
        type: 'HOLD_FOR_RELEASE',
        mode: 'ISSUE_PO',
        state: 'ACTIVE',
        need_by_window: 'AMEarly',
        need_by_date_day: '2027-01-15T00:00:00.000Z',
        header_custom_field_value: 'OC-22-110',
      },
      // Line 3 has no unit (priced each) and is drawn by release J-1042-0005-R1 below.
      items: [
        line(1, 'Type L copper pipe 1 in. x 20 ft', 3000, 'C', 1185, {}, 3),
        line(2, 'Copper 90 elbow 1 in.', 400, 'EA', 4.62),
        line(3, 'Pipe hanger kit, assorted (lot)', 6, null, 212.4),
      ],
      integration: ['LINKING', null],
    },
    {
      po: 'J-1042-0006',
      order: {
        ...base,
        vendor_id: ferguson,
        gl_code_id: gl.rent,
        title: 'Scissor lift rental',
        type: 'STANDARD',
        mode: 'ISSUE_PO',
        state: 'COMPLETE',
        need_by_window: 'PM',
        received_state: 'FULLY_RECEIVED',
        off_rent_date: '2026-11-30',
        off_rent_number: 'OR-55817',
      },
      items: [line(1, '19 ft electric scissor lift, monthly rental', 1, 'EA', 1450, { gl_code_id: gl.rent })],
      integration: ['LINKED', null],
      // Changed in the service after it was linked: OUT_OF_SYNC.
      changeAfterLink: true,
    },
    {
      po: 'J-1042-0007',
      order: {
        ...base,
        vendor_id: ferguson,
        title: 'Drywall screws (draft)',
        type: 'STANDARD',
        mode: 'ISSUE_PO',
        state: 'DRAFT',
        need_by_window: 'UNSPECIFIED',
      },
      items: [line(1, 'Drywall screw #6 x 1-1/4 in., box of 1000', 30, 'M', 38.9)],
    },
    {
      po: 'J-1042-0008',
      order: {
        ...base,
        vendor_id: graybar,
        title: 'Temporary lighting (cancelled)',
        type: 'STANDARD',
        mode: 'ISSUE_PO',
        state: 'CANCELLED',
        need_by_window: 'ASAP',
        flagged: true,
        flagged_at: '2026-11-10T16:20:00.000Z',
        flag_message: 'Vendor cannot ship before the pour; reordered elsewhere.',
      },
      items: [line(1, 'LED string light, 100 ft', 8, null, 129)],
    },
  ];

  const ids = new Map<string, string>();
  for (const o of orders) {
    const id = await createOrder(db, orgId, userId, { ...o.order, purchase_order_number: o.po }, o.items);
    // Prices as the API computes them (src/resources/orders/pricing.ts).
    await repriceItems(db, orgId, id);
    ids.set(o.po, id);
    remember('order', o.po, id);
    const items = await db('items').where({ organization_id: orgId, order_id: id }).select('id', 'line_number');
    for (const it of items) remember('item', `${o.po}#${it.line_number}`, it.id);
    if (o.integration) await setIntegrationState(db, orgId, id, o.integration[0], o.integration[1]);
    if (o.changeAfterLink) await updateOrder(db, orgId, userId, id, { notes: 'Off-rent called in early.' });
  }

  const [file] = await db('files')
    .insert({ organization_id: orgId, name: 'ferguson-quote-Q-88213.pdf', url: 'https://files.procurement.dev/demo/ferguson-quote-Q-88213.pdf' })
    .returning('id');
  await db('order_attachments').insert({ organization_id: orgId, order_id: ids.get('J-1042-0001'), file_id: file.id, identifier: 'Vendor quote Q-88213' });

  const tag = (title: string, color: string | null) => findOrInsert(ctx, 'tags', { title }, { type: 'ORDER', color });
  const longLead = await tag('Long lead', '#ffc069');
  const ownerFurnished = await tag('Owner furnished', '#69b1ff');
  const rush = await tag('Rush', null);
  await db('order_tags').insert([
    { organization_id: orgId, order_id: ids.get('J-1042-0001'), tag_id: rush },
    { organization_id: orgId, order_id: ids.get('J-1042-0002'), tag_id: longLead },
    { organization_id: orgId, order_id: ids.get('J-1042-0005'), tag_id: longLead },
    { organization_id: orgId, order_id: ids.get('J-1042-0005'), tag_id: ownerFurnished },
  ]);

  await db('notifications').insert([
    {
      organization_id: orgId,
      recipient_id: userId,
      type: 'integration_issue',
      payload: JSON.stringify({ lastSyncTime: '2026-11-20T22:10:00.000Z', order: { id: ids.get('J-1042-0002') } }),
    },
    {
      organization_id: orgId,
      recipient_id: userId,
      type: 'integration_issue',
      payload: JSON.stringify({ lastSyncTime: '2026-11-18T06:00:00.000Z' }),
      is_read: true,
      read_at: '2026-11-18T07:30:00.000Z',
    },
    { organization_id: orgId, recipient_id: userId, type: 'integration_issue_resolved', payload: JSON.stringify({ resolvedAt: '2026-11-18T09:45:00.000Z' }) },
  ]);

  // A release against the hold-for-release order's line without a unit.
  const hangers = await db('items')
    .where({ organization_id: orgId, order_id: ids.get('J-1042-0005'), line_number: 3 })
    .first('id');
  await createRelease(db, orgId, {
    orderId: ids.get('J-1042-0005')!,
    releaseNumber: 'J-1042-0005-R1',
    needByDateDay: '2026-12-10T00:00:00.000Z',
    needByWindow: 'AM',
    notes: 'Hangers for the level 1 mains.',
    deliveryLocationId: jobsite,
    createdById: userId,
    createdAt: '2026-11-09T13:00:00.000Z',
    items: [{ itemId: hangers.id, quantityReleased: 2 }],
  });

  await seedLongHistory(ctx, { ...base, vendor_id: ferguson }, line);
};

/**
 * An order with 12 completed change orders, more than GET /changeOrders returns in one request
 * (10), so paging through an order's versions is visible in the demo.
 */
async function seedLongHistory(
  ctx: Parameters<DemoPart>[0],
  base: OrderWrite,
  line: (n: number, d: string, q: number, u: string | null, p: number | null) => ItemWrite,
): Promise<void> {
  const { db, orgId, userId, remember } = ctx;
  const po = 'J-1042-0009';
  const id = await createOrder(
    db,
    orgId,
    userId,
    { ...base, purchase_order_number: po, title: 'Level 3 framing lumber', type: 'STANDARD', mode: 'ISSUE_PO', state: 'ACTIVE', need_by_window: 'AM' },
    [line(1, '2x6 SPF stud, 10 ft', 400, 'EA', 8.45), line(2, '2x10 DF #2, 16 ft', 120, 'EA', 31.2)],
  );
  await repriceItems(db, orgId, id);
  remember('order', po, id);
  const [studs] = await db('items').where({ organization_id: orgId, order_id: id }).orderBy('line_number').pluck('id');
  for (let n = 1; n <= 12; n++) {
    const before = (await snapshotOrder(db, orgId, id))!;
    if (n % 4 === 0) {
      await addItems(db, orgId, userId, id, [line(2 + n / 4, `Simpson LUS26 hanger, batch ${n / 4}`, 50, 'EA', 1.92)]);
    } else if (n % 2 === 0) {
      await updateOrder(db, orgId, userId, id, { notes: `Deliver in ${n} drops.` });
    } else {
      await updateItem(db, orgId, userId, studs, { quantity: 400 + n * 20 });
    }
    await repriceItems(db, orgId, id);
    const after = (await snapshotOrder(db, orgId, id))!;
    // After the other demo change orders, so a first page of GET /changeOrders still shows those.
    const hour = String(7 + n).padStart(2, '0');
    await recordChangeOrder(db, orgId, id, {
      label: `Framing rev ${n}`,
      note: 'Framing takeoff revision.',
      draft: false,
      createdById: userId,
      createdAt: `2026-11-16T${hour}:00:00.000Z`,
      before,
      after,
    });
  }
}
