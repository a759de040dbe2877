import type { Knex } from 'knex';
import type { DemoPart } from './context';
import { repriceItems } from '../../src/resources/orders/authoring';

/**
 * The demo's order lines priced as the API prices them (extPrice, extPriceIncludingTax: see
 * src/resources/orders/pricing.ts): the parts insert lines with their inputs only, or with stored
 * prices that did not follow the rule. Runs for the given orders, or every order of the organization.
 */
export async function priceDemoOrders(db: Knex.Transaction, orgId: string, orderIds?: string[]): Promise<void> {
  const ids = orderIds ?? ((await db('orders').where({ organization_id: orgId }).pluck('id')) as string[]);
  for (const id of ids) await repriceItems(db, orgId, id);
}

/** Last part: every order's lines priced. */
export const seedPrices: DemoPart = ({ db, orgId }) => priceDemoOrders(db, orgId);
