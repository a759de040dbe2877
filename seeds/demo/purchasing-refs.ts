import type { DemoContext } from './context';

/**
 * The job, vendor and location the releases, change-order and bill-of-materials parts hang on:
 * taken from earlier parts when they exist, created otherwise (so these parts also run alone).
 */
export async function demoJobId({ db, orgId }: DemoContext): Promise<string> {
  const found = await db('jobs').where({ organization_id: orgId, code: 'J-1042' }).first('id');
  if (found) return found.id;
  const [row] = await db('jobs').insert({ organization_id: orgId, code: 'J-1042', name: 'Riverside Medical Office Building' }).returning('id');
  return row.id;
}

export async function demoVendorId({ db, orgId }: DemoContext): Promise<string> {
  const found = await db('vendors').where({ organization_id: orgId, code: 'V-FERGUSON' }).whereNull('deleted_at').first('id');
  if (found) return found.id;
  const [row] = await db('vendors').insert({ organization_id: orgId, code: 'V-FERGUSON', name: 'Ferguson Enterprises' }).returning('id');
  return row.id;
}

export async function demoJobsiteId({ db, orgId }: DemoContext): Promise<string> {
  const found = await db('locations').where({ organization_id: orgId, type: 'Jobsite' }).whereNull('deleted_at').orderBy('created_at').first('id');
  if (found) return found.id;
  const [row] = await db('locations')
    .insert({
      organization_id: orgId,
      name: 'Riverside MOB laydown yard',
      type: 'Jobsite',
      address_line1: '4100 Riverside Pkwy',
      city: 'Sacramento',
      state: 'CA',
      zipcode: '95821',
    })
    .returning('id');
  return row.id;
}

/** Item IDs of an order by line number. */
export async function itemIds(ctx: DemoContext, orderId: string): Promise<Record<number, string>> {
  const rows: { id: string; line_number: number }[] = await ctx
    .db('items')
    .where({ organization_id: ctx.orgId, order_id: orderId })
    .select('id', 'line_number');
  return Object.fromEntries(rows.map((r) => [r.line_number, r.id]));
}
