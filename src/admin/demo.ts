import type { Db } from '../db/knex';
import { createOrganization, type ProvisionedOrganization } from './provision';

/** The demo organization's name and its administrator. */
export const DEMO_ORGANIZATION = { name: 'Summit Ridge Construction', adminEmail: 'ava.martinez@summitridge.example' };

/**
 * Loads the demo dataset (seeds/demo) into an organization. seeds/ is imported here, lazily, and
 * nowhere else in src/: the server's own code (everything src/server.ts imports statically) does
 * not carry 1,900 lines of demo data.
 */
export async function loadDemoData(db: Db, orgId: string): Promise<void> {
  const seeds = await import('../../seeds/demo/index.js');
  await seeds.loadDemoData(db, orgId);
}

/** A new organization holding the demo dataset. */
export async function createDemoOrganization(db: Db): Promise<ProvisionedOrganization> {
  const org = await createOrganization(db, DEMO_ORGANIZATION);
  await loadDemoData(db, org.organization.id);
  return org;
}

/** Creates the demo organization when the database holds no organization yet; undefined otherwise. */
export async function ensureDemoOrganization(db: Db, loading: () => void = () => undefined): Promise<ProvisionedOrganization | undefined> {
  if (await db('organizations').first('id')) return undefined;
  loading();
  return createDemoOrganization(db);
}
