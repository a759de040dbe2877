import type { Knex } from 'knex';
import { createOrganization, ProvisionedOrganization } from '../../src/admin/provision';
import { DemoPart, demoContext } from './context';
import { seedTaxCodes } from './tax-codes';
import { seedUnitsOfMeasure } from './units-of-measure';
// --- imports: jobs and groups ---
import { seedJobsAndGroups } from './jobs-groups';

// --- imports: locations and vendors ---
import { seedLocationsAndVendors } from './locations-vendors';

// --- imports: phases, cost categories, users, tags ---
import { seedUsers } from './users';
import { seedPhases } from './phases';
import { seedCostCategories } from './cost-categories';
import { seedTags } from './tags';

// --- imports: purchasing ---
import { seedPurchasing } from './purchasing';
import { seedPrices } from './prices';

// --- imports: change orders, releases, bills of materials ---
import { seedBillsOfMaterials } from './bills-of-materials';
import { seedChangeOrders } from './change-orders';
import { seedReleases } from './releases';

// --- imports: receiving and billing ---
import { seedRequisitions } from './requisitions';
import { seedWarehouseRequests } from './warehouse-requests';
import { seedDeliveryReceipts } from './delivery-receipts';
import { seedInvoices } from './invoices';
import { requestBackfill } from '../../src/resources/reconciliation/requests';

/**
 * The demo dataset, part by part, in dependency order. Each resource adds its part so that every
 * enum value and state the spec lists appears at least once.
 */
const PARTS: DemoPart[] = [
  seedTaxCodes,
  seedUnitsOfMeasure,
  // --- parts: users (phases, cost categories, users, tags) ---
  seedUsers,

  // --- parts: locations and vendors ---
  seedLocationsAndVendors,

  // --- parts: jobs and groups ---
  seedJobsAndGroups,

  // --- parts: phases, cost categories, tags ---
  seedPhases,
  seedCostCategories,
  seedTags,

  // --- parts: purchasing ---
  seedPurchasing,

  // --- parts: change orders, releases, bills of materials ---
  seedReleases,
  seedChangeOrders,
  seedBillsOfMaterials,

  // --- parts: receiving and billing ---
  seedRequisitions,
  seedWarehouseRequests,
  seedDeliveryReceipts,
  seedInvoices,
  // Last: every order line priced by the service's rule.
  seedPrices,
];

export const DEMO_ORGANIZATION = { name: 'Summit Ridge Construction', adminEmail: 'ava.martinez@summitridge.example' };

/** Loads the demo dataset into an organization, in one transaction. Refuses to load it twice. */
export async function loadDemoData(db: Knex, orgId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const org = await tx('organizations').where({ id: orgId }).forUpdate().first('id', 'demo_loaded_at');
    if (!org) throw new Error(`organization ${orgId} does not exist`);
    if (org.demo_loaded_at) throw new Error(`the demo data is already loaded into organization ${orgId}`);
    const admin = await tx('users')
      .where({ organization_id: orgId })
      .orderBy([{ column: 'admin', order: 'desc' }, 'created_at'])
      .first('id');
    if (!admin) throw new Error(`organization ${orgId} has no user`);
    const ctx = demoContext(tx, orgId, admin.id);
    for (const part of PARTS) await part(ctx);
    // Written without the feed: the objects' states (reconciliation digests) come from a backfill.
    await requestBackfill(tx, orgId);
    await tx('organizations').where({ id: orgId }).update({ demo_loaded_at: tx.fn.now() });
  });
}

/** A new organization holding the demo dataset. */
export async function createDemoOrganization(db: Knex): Promise<ProvisionedOrganization> {
  const org = await createOrganization(db, DEMO_ORGANIZATION);
  await loadDemoData(db, org.organization.id);
  return org;
}
