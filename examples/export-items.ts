/**
 * An integrator's export with the client kit (`@procurement-api/client`, client/): sign in with
 * client credentials and export every order item; `paginate` follows the keyset cursor of
 * `GET /items` at the largest page the contract allows. Run it with
 * `npx tsc -p . && node dist/examples/export-items.js` and the variables below set.
 */
import { createClient, paginate, type components } from '../client/src/index.mjs';

type BulkItem = components['schemas']['BulkItem'];

/** Every item of the organization, `pageSize` per request. */
export async function exportItems(baseUrl: string, clientId: string, clientSecret: string, pageSize = 2500): Promise<BulkItem[]> {
  const client = createClient({ baseUrl, clientId, clientSecret });
  const items: BulkItem[] = [];
  for await (const item of paginate(client, '/items', { query: { limit: pageSize } })) items.push(item);
  return items;
}

if (require.main === module) {
  const { API_BASE_URL = 'http://localhost:3000', CLIENT_ID = '', CLIENT_SECRET = '' } = process.env;
  exportItems(API_BASE_URL, CLIENT_ID, CLIENT_SECRET).then(
    (items) => console.log(`${items.length} items; first: ${JSON.stringify(items[0] ?? null)}`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
