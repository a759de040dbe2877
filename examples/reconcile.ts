/**
 * An integrator's check of its copy against the service with the client kit
 * (`@procurement-api/client`, client/): `reconcile` compares the digests of the local copy with
 * `GET /reconciliation/{resource}` from the top down and returns the ids that differ (then re-read
 * those objects, see the guide "Checking your copy").
 *
 * Run it with `npx tsc -p . && node dist/examples/reconcile.js <resource> <directory>`, the
 * directory holding the copy as JSON files (each an object or an array of objects, as the single
 * reads or the feed's `data` returned them), and API_BASE_URL, CLIENT_ID, CLIENT_SECRET set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, reconcile as reconcileCopy, type ReconciliationResource } from '../client/src/index.mjs';

/** A copy from a directory of JSON files: each file an object with an `id`, or an array of them. */
export function readCopy(directory: string): Map<string, object> {
  const copy = new Map<string, object>();
  for (const name of readdirSync(directory).filter((n) => n.endsWith('.json'))) {
    const parsed: unknown = JSON.parse(readFileSync(join(directory, name), 'utf8'));
    for (const o of Array.isArray(parsed) ? parsed : [parsed]) copy.set((o as { id: string }).id, o as object);
  }
  return copy;
}

/** Signs in with client credentials and compares the copy of `resource`: the ids that differ, sorted. */
export async function reconcile(baseUrl: string, clientId: string, clientSecret: string, resource: ReconciliationResource, copy: Map<string, object>) {
  const client = createClient({ baseUrl, clientId, clientSecret });
  const { asOf, missing, extra, different, requests } = await reconcileCopy({ client, resource, local: copy.values() });
  return { asOf, ids: [...missing, ...extra, ...different].sort(), requests };
}

if (require.main === module) {
  const { API_BASE_URL = 'http://localhost:3000', CLIENT_ID = '', CLIENT_SECRET = '' } = process.env;
  const [resource, directory] = process.argv.slice(2);
  reconcile(API_BASE_URL, CLIENT_ID, CLIENT_SECRET, resource as ReconciliationResource, readCopy(directory)).then(
    ({ asOf, ids, requests }) => {
      console.log(`${ids.length} ${resource} objects differ at asOf ${asOf} (${requests} requests)`);
      for (const id of ids) console.log(id);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
