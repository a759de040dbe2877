import type { Db } from '../db/knex';
import type { ProvisionedOrganization } from './provision';
import { createDemoOrganization, loadDemoData } from '../../seeds/demo';

/**
 * The demo organization, through the admin code path (the one place that loads seeds/): the
 * server calls it on a new embedded database, the CLI on request.
 */
export { createDemoOrganization, loadDemoData };

/** Creates the demo organization when the database holds no organization yet; undefined otherwise. */
export async function ensureDemoOrganization(db: Db, loading: () => void = () => undefined): Promise<ProvisionedOrganization | undefined> {
  if (await db('organizations').first('id')) return undefined;
  loading();
  return createDemoOrganization(db);
}
