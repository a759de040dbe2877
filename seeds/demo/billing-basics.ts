import type { DemoContext } from './context';
import { createOrder } from '../../src/resources/orders/store';

/**
 * What the receiving-and-billing parts hang their records on: the organization's jobs, vendors,
 * users and locations (created by earlier parts; created here when an earlier part has not), and
 * two orders made through the order store.
 */
export interface BillingBasics {
  jobs: string[];
  vendors: string[];
  users: string[];
  warehouseId: string;
  jobsiteId: string;
  orders: { id: string; itemIds: string[] }[];
}

const memo = new WeakMap<DemoContext, Promise<BillingBasics>>();

async function firstIds(ctx: DemoContext, table: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  const q = ctx
    .db(table)
    .where({ organization_id: ctx.orgId, ...extra })
    .orderBy(['created_at', 'id'])
    .limit(3);
  if (['jobs', 'users'].includes(table) === false) q.whereNull('deleted_at');
  return (await q.select('id')).map((r: { id: string }) => r.id);
}

async function load(ctx: DemoContext): Promise<BillingBasics> {
  const { db, orgId } = ctx;
  const ins = async (table: string, rows: Record<string, unknown>[]) =>
    (
      await db(table)
        .insert(rows.map((r) => ({ ...r, organization_id: orgId })))
        .returning('id')
    ).map((r: { id: string }) => r.id);

  let [warehouseId] = await firstIds(ctx, 'locations', { type: 'Warehouse' });
  warehouseId ??= (
    await ins('locations', [
      { name: 'Summit Ridge Main Yard', type: 'Warehouse', address_line1: '4100 Power Inn Rd', city: 'Sacramento', state: 'CA', zipcode: '95826' },
    ])
  )[0];
  let [jobsiteId] = await firstIds(ctx, 'locations', { type: 'Jobsite' });
  jobsiteId ??= (
    await ins('locations', [
      { name: 'Riverside Medical Office - Site', type: 'Jobsite', address_line1: '2215 Riverside Blvd', city: 'Sacramento', state: 'CA', zipcode: '95818' },
    ])
  )[0];
  let jobs = await firstIds(ctx, 'jobs');
  if (jobs.length < 2) {
    jobs = jobs.concat(
      await ins(
        'jobs',
        [
          { code: 'J-2041', name: 'Riverside Medical Office Building', default_location_id: jobsiteId },
          { code: 'J-2057', name: 'Folsom Lake Elementary Modernization' },
        ].slice(0, 2 - jobs.length),
      ),
    );
  }
  let vendors = await firstIds(ctx, 'vendors');
  if (vendors.length < 2) {
    vendors = vendors.concat(
      await ins(
        'vendors',
        [
          { code: 'V-FERGUSON', name: 'Ferguson Enterprises' },
          { code: 'V-SUNBELT', name: 'Sunbelt Rentals' },
        ].slice(0, 2 - vendors.length),
      ),
    );
  }
  let users = await firstIds(ctx, 'users');
  if (users.length < 2) {
    users = users.concat(
      await ins('users', [{ email: 'luis.ortega@summitridge.example', first_name: 'Luis', last_name: 'Ortega', display_name: 'Luis Ortega', role: 'Field' }]),
    );
  }
  const orders = [];
  for (const [i, po] of ['2041-0031', '2041-0032'].entries()) {
    const id = await createOrder(
      db,
      orgId,
      ctx.userId,
      {
        job_id: jobs[0],
        vendor_id: vendors[0],
        delivery_location_id: jobsiteId,
        purchase_order_number: po,
        state: 'ACTIVE',
        title: i ? 'Level 2 fittings' : 'Level 2 copper rough-in',
      },
      [
        { line_number: 1, description: '3/4 in. Type L copper pipe, 20 ft', quantity: 40, units_of_measure: 'EA', unit_price: 58.75, ext_price: 2350 },
        { line_number: 2, description: '3/4 in. copper 90 deg elbow, box of 25', quantity: 12, units_of_measure: 'BOX', unit_price: 42.5, ext_price: 510 },
      ],
    );
    const itemIds = (await db('items').where({ organization_id: orgId, order_id: id }).orderBy('line_number').select('id')).map((r: { id: string }) => r.id);
    orders.push({ id, itemIds });
  }
  return { jobs, vendors, users, warehouseId, jobsiteId, orders };
}

export function billingBasics(ctx: DemoContext): Promise<BillingBasics> {
  let p = memo.get(ctx);
  if (!p) memo.set(ctx, (p = load(ctx)));
  return p;
}

export async function demoFile(ctx: DemoContext, name: string): Promise<string> {
  const [f] = await ctx
    .db('files')
    .insert({ organization_id: ctx.orgId, name, url: `https://files.procurement.dev/demo/${name}` })
    .returning('id');
  return f.id;
}
