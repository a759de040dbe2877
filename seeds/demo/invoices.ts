import type { DemoPart } from './context';
import { billingBasics, demoFile } from './billing-basics';

export const seedInvoices: DemoPart = async (ctx) => {
  const { db, orgId } = ctx;
  const b = await billingBasics(ctx);
  const [ap, reviewer] = [b.users[0], b.users[1] ?? b.users[0]];
  const lookup = async (table: string, code: string) =>
    (await db(table).where({ organization_id: orgId, code }).whereNull('deleted_at').first('id'))?.id ?? null;
  const taxCa = await lookup('tax_codes', 'TX-CA');
  const [gl] = await db('gl_codes')
    .insert({ organization_id: orgId, code: '5100-MAT', description: 'Job cost - material' })
    .onConflict(['organization_id', 'code'])
    .merge()
    .returning('id');
  const [ct] = await db('cost_types')
    .insert({ organization_id: orgId, code: 'MAT', description: 'Material' })
    .onConflict(['organization_id', 'code'])
    .merge()
    .returning('id');
  const [ic] = await db('item_codes')
    .insert({ organization_id: orgId, code: 'CU-L-075', description: 'Copper pipe type L 3/4 in.' })
    .onConflict(['organization_id', 'code'])
    .merge()
    .returning('id');
  const scan = await demoFile(ctx, 'ferguson-S1029384.001.pdf');

  const base = { organization_id: orgId, created_by_id: ap, job_id: b.jobs[0], vendor_id: b.vendors[0] };
  const invoices = [
    {
      invoice_number: 'S1029384.001',
      title: 'Ferguson - copper rough-in, L2',
      category: 'material',
      state: 'APPROVED',
      order_id: b.orders[0].id,
      invoice_date: '2026-11-06T00:00:00Z',
      ship_date: '2026-11-05T00:00:00Z',
      due_date: '2026-12-06T00:00:00Z',
      approved_at: '2026-11-08T09:00:00Z',
      approved_by_id: reviewer,
      assigned_at: '2026-11-07T10:20:00Z',
      subtotal: 2860,
      tax: 207.35,
      shipping_cost: 45,
      total_due: 3112.35,
      terms: 'Net 30',
      salesperson: 'Dana Whitfield',
      ship_via: 'Vendor truck',
      integration_state: 'LINKED',
      integration_message: 'Posted to AP as VI-55120.',
    },
    {
      invoice_number: 'S1029384.002',
      title: 'Ferguson - fittings, L2',
      category: 'material',
      state: 'CLOSED',
      order_id: b.orders[1].id,
      invoice_date: '2026-10-28T00:00:00Z',
      due_date: '2026-11-27T00:00:00Z',
      approved_at: '2026-10-30T11:00:00Z',
      approved_by_id: reviewer,
      paid_at: '2026-11-15T17:00:00Z',
      paid_by_id: ap,
      payments: 547.48,
      subtotal: 510,
      tax: 37.48,
      total_due: 547.48,
      terms: 'Net 30',
      integration_state: 'LINKED',
    },
    {
      invoice_number: '148820331-0001',
      title: 'Sunbelt - scissor lift, November',
      category: 'rentals',
      state: 'PENDING',
      vendor_id: b.vendors[1] ?? b.vendors[0],
      invoice_date: '2026-11-01T00:00:00Z',
      due_date: '2026-12-01T00:00:00Z',
      exceptions: ['orderId'],
      flagged: true,
      flagged_at: '2026-11-08T11:30:00Z',
      flagged_by_id: reviewer,
      flag_message: 'No PO on file for this rental.',
      subtotal: 1180,
      tax: 0,
      total_due: 1180,
      tax_exempt: true,
      integration_state: 'ERROR',
      integration_message: 'Vendor SUNBELT is not mapped to an ERP vendor.',
    },
    {
      invoice_number: 'GC-2041-07',
      title: 'Pay application 7 - sitework sub',
      category: 'genContractor',
      state: 'INBOX',
      job_id: b.jobs[1] ?? b.jobs[0],
      invoice_date: '2026-11-10T00:00:00Z',
      subtotal: 48250,
      tax: 0,
      total_due: 48250,
      terms: 'Net 45',
      integration_state: 'NOT_LINKED',
    },
    {
      invoice_number: 'CM-S1029384',
      title: 'Ferguson - credit, damaged elbows',
      category: 'miscellaneous',
      type: 'CREDIT_MEMO',
      state: 'INBOX',
      order_id: b.orders[0].id,
      invoice_date: '2026-11-09T00:00:00Z',
      exceptions: ['unitPrice'],
      subtotal: -85,
      tax: -6.16,
      total_due: -91.16,
      integration_state: 'LINKING',
    },
    {
      invoice_number: 'S1027711.001',
      title: 'Rejected - billed to wrong job',
      category: 'material',
      state: 'PENDING',
      invoice_date: '2026-10-15T00:00:00Z',
      rejected_at: '2026-10-17T09:15:00Z',
      rejected_by_id: reviewer,
      rejected_reason: 'Billed to the wrong job; vendor will reissue.',
      voided_at: '2026-10-17T09:20:00Z',
      voided_by_id: reviewer,
      subtotal: 312.4,
      tax: 22.65,
      total_due: 335.05,
      integration_state: 'NOT_LINKED',
    },
  ];
  const ids = (await db('invoices')
    .insert(invoices.map((i) => ({ ...base, ...i })))
    .returning(['id', 'invoice_number'])) as { id: string; invoice_number: string }[];
  const id = (n: string) => ids.find((r) => r.invoice_number === n)!.id;
  await db('invoices').insert({
    ...base,
    invoice_number: 'S1029384.001-DUP',
    title: 'Duplicate upload',
    category: 'material',
    state: 'INBOX',
    deleted_at: db.fn.now(),
  });
  await db('invoice_attachments').insert({ organization_id: orgId, invoice_id: id('S1029384.001'), file_id: scan });

  const mat = { tax_code_id: taxCa, tax_rate: 0.0725, gl_code_id: gl.id, cost_type_id: ct.id };
  const items = [
    {
      invoice_id: id('S1029384.001'),
      line_number: 1,
      description: '3/4 in. Type L copper pipe, 20 ft',
      ship_quantity: 40,
      unit_price: 58.75,
      ext_price: 2350,
      ext_price_including_tax: 2520.38,
      extended_quantity: 800,
      units_of_measure: 'EA',
      requested_uom: 'EA',
      pricing_uom: 'EA',
      extended_uom: 'FT',
      scaled_unit_price: 2.9375,
      manufacturer_part_number: 'LH04020',
      universal_product_code: '039923040209',
      item_code_id: ic.id,
      item_code_text: 'CU-L-075',
      ...mat,
    },
    {
      invoice_id: id('S1029384.001'),
      line_number: 2,
      description: '3/4 in. copper 90 deg elbow, box of 25',
      ship_quantity: 12,
      unit_price: 42.5,
      ext_price: 510,
      ext_price_including_tax: 546.98,
      units_of_measure: 'BOX',
      ...mat,
    },
    {
      invoice_id: id('S1029384.002'),
      line_number: 1,
      description: '3/4 in. copper 90 deg elbow, box of 25',
      ship_quantity: 12,
      unit_price: 42.5,
      ext_price: 510,
      ext_price_including_tax: 546.98,
      units_of_measure: 'BOX',
      ...mat,
    },
    {
      invoice_id: id('148820331-0001'),
      line_number: 1,
      description: 'Scissor lift 26 ft, 4-week rental',
      ship_quantity: 1,
      unit_price: 1180,
      ext_price: 1180,
      units_of_measure: 'MO',
      has_exception: true,
      notes: 'No PO on file.',
    },
    {
      invoice_id: id('GC-2041-07'),
      line_number: 1,
      description: 'Sitework - grading and base, 65% complete',
      ship_quantity: 1,
      unit_price: 48250,
      ext_price: 48250,
      units_of_measure: 'LS',
    },
    {
      invoice_id: id('CM-S1029384'),
      line_number: 1,
      description: 'Credit - crushed elbow boxes',
      ship_quantity: -2,
      unit_price: 42.5,
      ext_price: -85,
      units_of_measure: 'BOX',
      has_exception: true,
      notes: 'Credit priced at list, not at PO price.',
      ...mat,
    },
    {
      invoice_id: id('S1027711.001'),
      line_number: 1,
      description: '1-5/8 in. strut channel, 10 ft',
      ship_quantity: 10,
      unit_price: 31.24,
      ext_price: 312.4,
      units_of_measure: 'EA',
      ...mat,
    },
  ];
  await db('invoice_items').insert(items.map((i) => ({ ...i, organization_id: orgId })));
};
