/**
 * A connector with the client kit (`@procurement-api/client`, client/): it keeps a copy of the
 * organization's vendors by following the change feed (cursor in a file, stored only after the
 * entries before it were applied), rebuilds the copy from a full read when its cursor has expired
 * (410), and is woken at once by each verified webhook delivery instead of waiting for its next poll.
 * Run it with `npx tsc -p . && node dist/examples/sync-connector.js`, API_BASE_URL, CLIENT_ID,
 * CLIENT_SECRET set, and WEBHOOK_SECRET with a port in WEBHOOK_PORT to receive deliveries.
 */
import http from 'node:http';
import { createClient, FeedFollower, fileCursorStore, fullReadResync, verifyWebhook, type ChangeEntry } from '../client/src/index.mjs';

/** The copy: vendors by id (an ERP would write its own tables here, in one transaction with the cursor). */
export const vendors = new Map<string, unknown>();

export function apply(entry: ChangeEntry): void {
  if (entry.type.endsWith('.deleted')) vendors.delete(entry.id);
  else vendors.set(entry.id, entry.data);
}

export function connector(baseUrl: string, clientId: string, clientSecret: string, cursorFile: string): FeedFollower {
  const client = createClient({ baseUrl, clientId, clientSecret });
  return new FeedFollower({
    client,
    cursorStore: fileCursorStore(cursorFile),
    resource: 'vendor',
    excludeOrigins: ['self'],
    handle: apply,
    onResync: fullReadResync({
      lists: { vendor: '/vendors' },
      begin: () => vendors.clear(),
      apply: (_resource, vendor) => void vendors.set(vendor.id, vendor),
    }),
  });
}

/** A webhook receiver that wakes the follower on every verified delivery (and ignores the rest). */
export function wakeOnWebhooks(follower: FeedFollower, secret: string, port: number): http.Server {
  return http
    .createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          verifyWebhook(Buffer.concat(chunks), req.headers, secret);
          follower.wake();
          res.writeHead(204).end();
        } catch (err) {
          res.writeHead(400).end(String((err as Error).message));
        }
      });
    })
    .listen(port);
}

if (require.main === module) {
  const { API_BASE_URL = 'http://localhost:3000', CLIENT_ID = '', CLIENT_SECRET = '', WEBHOOK_SECRET, WEBHOOK_PORT = '8080' } = process.env;
  const follower = connector(API_BASE_URL, CLIENT_ID, CLIENT_SECRET, '.vendors-cursor');
  const receiver = WEBHOOK_SECRET ? wakeOnWebhooks(follower, WEBHOOK_SECRET, Number(WEBHOOK_PORT)) : undefined;
  process.once('SIGINT', () => void follower.stop().then(() => receiver?.close()));
  follower
    .catchUp()
    .then(() => {
      console.log(`${vendors.size} vendors; following (Ctrl-C stops)`);
      return follower.start();
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
