import { notFound } from '../../errors';
import type { Queryable } from '../../db/knex';
import { existsById } from '../../db/resource';
import { orderRows } from './queries';

/** An order named in a path (its own operations', and those of its items, tags and receipts). */
export const missingOrder = (id: string) => notFound(`No order matches ${id}.`);

/** 404 unless the ID is a live order of the organization (the parent of items, tags, receipts). */
export async function requireOrder(db: Queryable, orgId: string, orderId: string): Promise<void> {
  if (!(await existsById(db, orderRows, orgId, orderId))) throw missingOrder(orderId);
}
