import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';

/**
 * Purchase order numbering per job. `jobs.next_po_counter` is the number the job's next order
 * gets; a number is "in use" when a live order of the job carries it as its purchase order number
 * (written in decimal). Every change of the counter happens with the job row locked
 * (SELECT ... FOR UPDATE), so concurrent takers and counter changes are serialized and never hand
 * out a number in use; the taker must insert its order in the same transaction.
 */

/**
 * The smallest number >= start that no live order of the job uses. It is `start` itself or one
 * more than a used number >= start, so only the job's used numbers are examined.
 */
async function firstFreeNumber(db: Queryable, orgId: string, jobId: string, start: number): Promise<number> {
  const used = 'o.organization_id = ? AND o.job_id = ? AND o.deleted_at IS NULL';
  const { rows } = await db.raw(
    `SELECT min(c.n) AS n FROM (
       SELECT CAST(? AS bigint) AS n
       UNION ALL
       SELECT u.n + 1 FROM (
         -- the CASE guards the cast: numbers that are not plain decimals are never "in use"
         SELECT CASE WHEN o.purchase_order_number ~ '^[1-9][0-9]{0,17}$' THEN CAST(o.purchase_order_number AS bigint) END AS n
         FROM orders o WHERE ${used}
       ) u WHERE u.n >= ?
     ) c
     WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE ${used} AND o.purchase_order_number = CAST(c.n AS text))`,
    [start, orgId, jobId, start, orgId, jobId],
  );
  return Number(rows[0].n);
}

async function lockedCounter(tx: Knex.Transaction, orgId: string, jobId: string): Promise<number> {
  const job = await tx('jobs').where({ organization_id: orgId, id: jobId }).forUpdate().first('next_po_counter');
  if (!job) throw new Error(`job ${jobId} does not exist in organization ${orgId}`);
  return job.next_po_counter;
}

/** Takes the job's next free number for a new order and advances the counter past it. */
export async function takePurchaseOrderNumber(tx: Knex.Transaction, orgId: string, jobId: string): Promise<string> {
  const n = await firstFreeNumber(tx, orgId, jobId, await lockedCounter(tx, orgId, jobId));
  await tx('jobs')
    .where({ organization_id: orgId, id: jobId })
    .update({ next_po_counter: n + 1 });
  return String(n);
}

/** The number the job's next order would get now (GET .../nextPurchaseOrderNumber). */
export async function peekNextPurchaseOrderNumber(db: Queryable, orgId: string, jobId: string): Promise<number> {
  const job = await db('jobs').where({ organization_id: orgId, id: jobId }).first('next_po_counter');
  return firstFreeNumber(db, orgId, jobId, job.next_po_counter);
}

/**
 * Sets the counter to `next`, or to the first free number after it when `next` is in use; returns
 * whether that changed it (the job's read does not show the counter: src/feed/unchanged.ts).
 */
export async function setPurchaseOrderCounter(tx: Knex.Transaction, orgId: string, jobId: string, next: number): Promise<boolean> {
  const current = await lockedCounter(tx, orgId, jobId);
  const n = await firstFreeNumber(tx, orgId, jobId, next);
  if (Number(current) === n) return false;
  await tx('jobs').where({ organization_id: orgId, id: jobId }).update({ next_po_counter: n, updated_at: tx.fn.now() });
  return true;
}
