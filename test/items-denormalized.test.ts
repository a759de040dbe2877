import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { insertJob, insertVendor, makeOrder, sleep, softDeleteOrder } from './support/purchasing-fixtures';
import { Basics, invoice } from './support/billing-fixtures';
import { addItems, removeItem, updateItem, updateOrder } from '../src/resources/orders/store';

/**
 * The parent facts copied onto item rows (order/invoice deleted, job, vendor) and the exact counts
 * in live_row_counts (migrations/20261124070000_item_parent_facts.ts) stay equal to their source
 * after a mixed workload: the order store, direct SQL on orders, items, invoices and invoice items
 * (changing job and vendor, soft delete and undelete, moving an item, hard deletes with their
 * cascades), concurrent transactions, and the bulk lists answer from them.
 */
const db = () => harness().db;

/** Rows whose copied facts differ from their parent's, in the whole database. */
async function factMismatches(child: 'items' | 'invoice_items'): Promise<unknown[]> {
  const [parent, ref, p] = child === 'items' ? ['orders', 'order_id', 'order'] : ['invoices', 'invoice_id', 'invoice'];
  const { rows } = await db().raw(
    `SELECT x.id FROM ${child} x JOIN ${parent} p ON p.organization_id = x.organization_id AND p.id = x.${ref}
     WHERE x.${p}_job_id IS DISTINCT FROM p.job_id OR x.${p}_vendor_id IS DISTINCT FROM p.vendor_id OR x.${p}_deleted <> (p.deleted_at IS NOT NULL)`,
  );
  return rows;
}

/** Organizations whose maintained count differs from counting under live parents, in the whole database. */
async function countMismatches(child: 'items' | 'invoice_items'): Promise<unknown[]> {
  const [parent, ref] = child === 'items' ? ['orders', 'order_id'] : ['invoices', 'invoice_id'];
  const { rows } = await db().raw(
    `WITH kept AS (SELECT organization_id, sum(n)::bigint AS n FROM live_row_counts WHERE relation = ? GROUP BY organization_id),
          counted AS (SELECT x.organization_id, count(*)::bigint AS n FROM ${child} x
                      JOIN ${parent} p ON p.organization_id = x.organization_id AND p.id = x.${ref} AND p.deleted_at IS NULL GROUP BY x.organization_id)
     SELECT coalesce(k.organization_id, c.organization_id) AS organization_id, k.n AS kept, c.n AS counted
     FROM kept k FULL JOIN counted c ON c.organization_id = k.organization_id
     WHERE coalesce(k.n, 0) <> coalesce(c.n, 0)`,
    [child],
  );
  return rows;
}

async function expectConsistent(): Promise<void> {
  for (const child of ['items', 'invoice_items'] as const) {
    expect(await factMismatches(child), `${child}: copied facts`).to.deep.equal([]);
    expect(await countMismatches(child), `${child}: live_row_counts`).to.deep.equal([]);
  }
}

const line = (n: number, description = `Line ${n}`) => ({ line_number: n, description, quantity: n * 10 });

describe('item rows keep their parent facts and live counts (triggers)', () => {
  let org: TestOrg;
  let jobA: string;
  let jobB: string;
  let vendorA: string;
  let vendorB: string;
  let orders: string[];

  before(async () => {
    org = await newOrg();
    [jobA, jobB, vendorA, vendorB] = [await insertJob(org.id), await insertJob(org.id), await insertVendor(org.id), await insertVendor(org.id)];
    orders = [
      await makeOrder(org, { job_id: jobA, vendor_id: vendorA }, [line(1), line(2), line(3)]),
      await makeOrder(org, { job_id: jobA, vendor_id: vendorB }, [line(1), line(2)]),
      await makeOrder(org, { job_id: jobB, vendor_id: vendorA }, [line(1)]),
      await makeOrder(org, {}, [line(1), line(2)]),
    ];
  });

  it('copies the order facts onto new items, whichever way they are written', async () => {
    await addItems(db(), org.id, org.userId, orders[0], [line(4), line(5)]);
    await db()('items').insert({ organization_id: org.id, order_id: orders[3], line_number: 3, description: 'Direct insert' });
    const rows = await db()('items').where({ organization_id: org.id, order_id: orders[0] }).select('order_job_id', 'order_vendor_id', 'order_deleted');
    expect(rows).to.have.length(5);
    expect(rows.every((r) => r.order_job_id === jobA && r.order_vendor_id === vendorA && r.order_deleted === false)).to.equal(true);
    await expectConsistent();
  });

  it('follows order changes: job and vendor through the store and by SQL, soft delete, undelete, several orders at once', async () => {
    await updateOrder(db(), org.id, org.userId, orders[1], { job_id: jobB, vendor_id: null });
    await db()('orders').where({ organization_id: org.id, id: orders[2] }).update({ vendor_id: vendorB, job_id: null });
    await softDeleteOrder(org.id, orders[1]);
    await expectConsistent();
    await db()('orders').where({ organization_id: org.id, id: orders[3] }).update({ deleted_at: db().fn.now() });
    await expectConsistent();
    await db()('orders').where({ organization_id: org.id, id: orders[3] }).update({ deleted_at: null });
    // Several orders in one statement, one of them changing only a column the items do not copy.
    await db()('orders').where({ organization_id: org.id }).whereIn('id', [orders[0], orders[2]]).update({ vendor_id: vendorA, notes: 'Both' });
    await db()('orders').where({ organization_id: org.id, id: orders[0] }).update({ job_id: null });
    const item = await db()('items').where({ organization_id: org.id, order_id: orders[0] }).first('order_job_id');
    expect(item.order_job_id).to.equal(null);
    await expectConsistent();
  });

  it('follows item changes: moved to another order, edited, removed; copied columns cannot be written around the source', async () => {
    const [first, second] = await db()('items').where({ organization_id: org.id, order_id: orders[0] }).orderBy('line_number').limit(2).pluck('id');
    // Into the deleted order (hidden) and back to a live one.
    await db()('items').where({ organization_id: org.id, id: first }).update({ order_id: orders[1] });
    await expectConsistent();
    await db()('items').where({ organization_id: org.id, id: first }).update({ order_id: orders[2] });
    await updateItem(db(), org.id, org.userId, second, { description: 'Edited' });
    await removeItem(db(), org.id, org.userId, second);
    await db()('items').where({ organization_id: org.id, order_id: orders[3] }).update({ order_deleted: true, order_job_id: jobA, order_vendor_id: vendorB });
    await expectConsistent();
    const forged = await db()('items').where({ organization_id: org.id, order_id: orders[3] }).select('order_deleted', 'order_job_id');
    expect(forged.every((r) => r.order_deleted === false && r.order_job_id === null)).to.equal(true);
  });

  it('counts exactly through hard deletes (item rows cascading with their order) and many small writes (deltas folded)', async () => {
    const doomed = await makeOrder(org, { job_id: jobA }, [line(1), line(2), line(3)]);
    await expectConsistent();
    await db()('orders').where({ organization_id: org.id, id: doomed }).delete();
    for (let n = 0; n < 40; n++) await addItems(db(), org.id, org.userId, orders[2], [line(100 + n)]);
    await expectConsistent();
    const deltas = await db()('live_row_counts').where({ organization_id: org.id, relation: 'items' }).count({ n: '*' });
    expect(Number(deltas[0].n)).to.be.at.most(33);
  });

  it('keeps an item inserted while its order changes in another transaction equal to the committed order', async () => {
    const orderChange = await db().transaction();
    await orderChange('orders').where({ organization_id: org.id, id: orders[2] }).update({ job_id: jobA, deleted_at: db().fn.now() });
    const itemWrite = await db().transaction();
    const {
      rows: [{ pid }],
    } = await itemWrite.raw('SELECT pg_backend_pid() AS pid');
    // Waits for the order change (the trigger reads the order under its row lock), then reads its committed values.
    const inserted = itemWrite('items')
      .insert({ organization_id: org.id, order_id: orders[2], line_number: 500, description: 'Concurrent' })
      .returning('id')
      .then((r) => r);
    while ((await db().raw('SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?', [pid])).rows[0]?.wait_event_type !== 'Lock') await sleep(10);
    await orderChange.commit();
    const [row] = await inserted;
    await itemWrite.commit();
    const item = await db()('items').where({ id: row.id }).first('order_job_id', 'order_deleted');
    expect(item).to.deep.equal({ order_job_id: jobA, order_deleted: true });
    await expectConsistent();
    await db()('orders').where({ organization_id: org.id, id: orders[2] }).update({ deleted_at: null });
  });

  it('lets two transactions add items to one order at the same time (the second waits, neither deadlocks)', async () => {
    const first = await db().transaction();
    const second = await db().transaction();
    const {
      rows: [{ pid }],
    } = await second.raw('SELECT pg_backend_pid() AS pid');
    // The first has added its item and not yet touched the order when the second adds one: had
    // both only share-locked the order, each would now wait for the other to touch it.
    await first('items').insert({ organization_id: org.id, order_id: orders[3], ...line(600) });
    const added = addItems(second, org.id, org.userId, orders[3], [line(601)]);
    while ((await db().raw('SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?', [pid])).rows[0]?.wait_event_type !== 'Lock') await sleep(10);
    await first('orders').where({ organization_id: org.id, id: orders[3] }).update({ updated_at: first.fn.now() });
    await first.commit();
    await added;
    await second.commit();
    expect(await db()('items').where({ organization_id: org.id, order_id: orders[3] }).whereIn('line_number', [600, 601]).pluck('line_number')).to.have.members(
      [600, 601],
    );
    await expectConsistent();
  });

  it('GET /items answers from the copies: items of deleted orders left out, exact meta.total, jobId and vendorId of the order', async () => {
    const page = expectStatus(await org.api.get('/items?limit=2500'), 200).body as { meta: { total: number }; data: any[] };
    const expected = await db()('items as i')
      .join('orders as o', (j) => j.on('o.organization_id', 'i.organization_id').andOn('o.id', 'i.order_id'))
      .where('i.organization_id', org.id)
      .whereNull('o.deleted_at')
      .select('i.id', 'o.job_id', 'o.vendor_id');
    expect(page.meta.total).to.equal(expected.length);
    expect(page.data.map((i) => [i.id, i.jobId, i.vendorId]).sort()).to.deep.equal(expected.map((r) => [r.id, r.job_id, r.vendor_id]).sort());
    const ofJob = expectStatus(await org.api.get(`/items?limit=2500&filter[jobId]=${jobA}`), 200).body as { meta: { total: number }; data: any[] };
    expect(ofJob.meta.total).to.equal(expected.filter((r) => r.job_id === jobA).length);
  });

  it('invoice items follow their invoice (store-less paths: SQL only) and GET /invoice-items answers from the copies', async () => {
    const b = { jobId: jobA, vendorId: vendorA, userId: org.userId } as Basics;
    const inv = await invoice(org, b, {}, [{ description: 'Copper pipe' }, { description: 'Fittings' }]);
    const other = await invoice(org, b, { job_id: null }, [{ description: 'Gloves' }]);
    await expectConsistent();
    await db()('invoices').where({ organization_id: org.id, id: inv }).update({ job_id: jobB, vendor_id: vendorB });
    await db()('invoices').where({ organization_id: org.id, id: other }).update({ deleted_at: db().fn.now() });
    await expectConsistent();
    await db()('invoice_items').insert({ organization_id: org.id, invoice_id: other, line_number: 2, description: 'Hidden' });
    await db()('invoices').where({ organization_id: org.id, id: other }).update({ deleted_at: null });
    await db()('invoice_items').where({ organization_id: org.id, invoice_id: inv, line_number: 2 }).delete();
    await db()('invoice_items').where({ organization_id: org.id, invoice_id: other, line_number: 2 }).update({ invoice_id: inv, line_number: 3 });
    await expectConsistent();
    await db()('invoices').where({ organization_id: org.id, id: other }).delete();
    await expectConsistent();

    const page = expectStatus(await org.api.get('/invoice-items?limit=2500'), 200).body as { meta: { total: number }; data: any[] };
    expect(page.meta.total).to.equal(2);
    expect(page.data.map((i) => [i.invoiceId, i.jobId, i.vendorId])).to.deep.equal([
      [inv, jobB, vendorB],
      [inv, jobB, vendorB],
    ]);
  });

  it('another organization counts on its own', async () => {
    const other = await newOrg();
    await makeOrder(other, {}, [line(1)]);
    const page = expectStatus(await other.api.get('/items'), 200).body as { meta: { total: number } };
    expect(page.meta.total).to.equal(1);
    await expectConsistent();
  });
});
