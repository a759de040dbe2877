import type { Db } from '../db/knex';
import { createOrganization, type ProvisionedOrganization } from './provision';
import { setOrganizationSettings } from './org-settings';

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

/**
 * What the demo organization of `npm start` (on the embedded database, a developer's machine) gets
 * besides the production defaults: room for a script that loops over every list (RATE_LIMIT_BURST
 * is 20 a second, RATE_LIMIT_HOURLY 3,600 an hour), and webhook receivers on this machine. Any
 * other organization keeps the defaults; `admin org setting` changes either.
 */
export const DEVELOPMENT_SETTINGS = { rateLimitBurst: 200, rateLimitHourly: 100_000, loopbackWebhooks: true } as const;

/** The demo organization of a developer's machine: the demo dataset and the development settings. */
export async function createDevelopmentDemo(db: Db): Promise<ProvisionedOrganization> {
  const org = await createDemoOrganization(db);
  await setOrganizationSettings(db, org.organization.id, DEVELOPMENT_SETTINGS);
  return org;
}

/** Creates the development demo organization when the database holds no organization yet; undefined otherwise. */
export async function ensureDemoOrganization(db: Db, loading: () => void = () => undefined): Promise<ProvisionedOrganization | undefined> {
  if (await db('organizations').first('id')) return undefined;
  loading();
  return createDevelopmentDemo(db);
}
