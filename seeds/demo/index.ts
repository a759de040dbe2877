import type { Knex } from 'knex';
import { DemoPart, demoContext } from './context';
import { seedTaxCodes } from './tax-codes';
import { seedUnitsOfMeasure } from './units-of-measure';
import { seedJobsAndGroups } from './jobs-groups';
import { seedLocationsAndVendors } from './locations-vendors';
import { seedUsers } from './users';
import { seedPhases } from './phases';
import { seedCostCategories } from './cost-categories';
import { seedTags } from './tags';
import { seedPurchasing } from './purchasing';
import { seedPrices } from './prices';
import { seedBillsOfMaterials } from './bills-of-materials';
import { seedChangeOrders } from './change-orders';
import { seedReleases } from './releases';
import { seedRequisitions } from './requisitions';
import { seedWarehouseRequests } from './warehouse-requests';
import { seedDeliveryReceipts } from './delivery-receipts';
import { seedInvoices } from './invoices';
import { requestBackfill } from '../../src/resources/reconciliation/requests';
import { resourcesWithoutCreated, createdEntries, liveObjectIds } from '../../src/resources/reconciliation/created-entries';
import { RECONCILED } from '../../src/resources';
import { writeTransaction } from '../../src/feed/append';

/**
 * The demo dataset, part by part, in dependency order. Each resource adds its part so that every
 * enum value and state the spec lists appears at least once.
 */
const PARTS: DemoPart[] = [
  seedTaxCodes,
  seedUnitsOfMeasure,
  seedUsers,
  seedLocationsAndVendors,
  seedJobsAndGroups,
  seedPhases,
  seedCostCategories,
  seedTags,
  seedPurchasing,
  seedReleases,
  seedChangeOrders,
  seedBillsOfMaterials,
  seedRequisitions,
  seedWarehouseRequests,
  seedDeliveryReceipts,
  seedInvoices,
  // Last: every order line priced by the service's rule.
  seedPrices,
];

/**
 * Loads the demo dataset into an organization, in one transaction with its feed entries (origin
 * `system`): each object it creates is `<resource>.created` with the object as its read returns it,
 * built in bulk after every part ran (createdEntries). Refuses to load it twice.
 */
export async function loadDemoData(db: Knex, orgId: string): Promise<void> {
  await writeTransaction(db, orgId, async (tx, changes) => {
    const org = await tx('organizations').where({ id: orgId }).forUpdate().first('id', 'demo_loaded_at');
    if (!org) throw new Error(`organization ${orgId} does not exist`);
    if (org.demo_loaded_at) throw new Error(`the demo data is already loaded into organization ${orgId}`);
    const admin = await tx('users')
      .where({ organization_id: orgId })
      .orderBy([{ column: 'admin', order: 'desc' }, 'created_at'])
      .first('id');
    if (!admin) throw new Error(`organization ${orgId} has no user`);
    const before = await liveObjectIds(RECONCILED, tx, orgId);
    const ctx = demoContext(tx, orgId, admin.id);
    for (const part of PARTS) await part(ctx);
    // The resources the feed has no `created` event for get their objects' states from a backfill.
    await requestBackfill(tx, orgId, resourcesWithoutCreated(RECONCILED));
    await tx('organizations').where({ id: orgId }).update({ demo_loaded_at: tx.fn.now() });
    for (const entry of await createdEntries(RECONCILED, tx, orgId, before)) changes.add(entry);
  });
}
