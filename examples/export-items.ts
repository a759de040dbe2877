/**
 * An integrator's client, typed by the contract (generated/api-types.ts) with openapi-fetch:
 * get an access token with client credentials, then export every order item, page by page,
 * following the keyset cursor. Run it with `npx tsc -p . && node dist/examples/export-items.js`
 * and the variables below set.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/api-types';

type BulkItem = components['schemas']['BulkItem'];
type ItemPage = components['schemas']['BulkItemPage'];

export async function getAccessToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const auth = createClient<paths>({ baseUrl });
  const { data, error } = await auth.POST('/oauth2/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    // RFC 6749: the token request is form-encoded.
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  if (error || !data) throw new Error(`token request failed: ${JSON.stringify(error)}`);
  return data.access_token;
}

/** Every item of the organization, newest first, `pageSize` per request. */
export async function exportItems(baseUrl: string, clientId: string, clientSecret: string, pageSize = 500): Promise<BulkItem[]> {
  const token = await getAccessToken(baseUrl, clientId, clientSecret);
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const items: BulkItem[] = [];
  let cursor: string | null | undefined = 'start';
  while (cursor) {
    const at: string = cursor;
    const result = await api.GET('/items', { params: { query: { limit: pageSize, cursor: at } } });
    const page: ItemPage | undefined = result.data;
    if (!page) throw new Error(`GET /items failed: ${JSON.stringify(result.error)}`);
    items.push(...page.data);
    cursor = page.meta.nextCursor;
  }
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
