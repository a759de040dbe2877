/**
 * A connector in a child process (test/client-feed-follower.test.ts): follows the feed's vendor
 * entries with the client kit's FeedFollower and a file cursor store, appends each entry it handles
 * to a log file (slowly, so that a test can kill it mid-page), and exits 0 once caught up.
 * Arguments: baseUrl apiKey cursorFile logFile delayMs.
 */
import { appendFileSync } from 'node:fs';
import { createClient, FeedFollower, fileCursorStore } from '../../client/src/index.mjs';

const [baseUrl, apiKey, cursorFile, logFile, delayMs] = process.argv.slice(2);
const follower = new FeedFollower({
  client: createClient({ baseUrl, apiKey }),
  cursorStore: fileCursorStore(cursorFile),
  resource: 'vendor',
  pageSize: 10,
  handle: async (entry) => {
    appendFileSync(logFile, JSON.stringify({ cursor: entry.cursor, type: entry.type, id: entry.id, data: entry.data }) + '\n');
    await new Promise((resolve) => setTimeout(resolve, Number(delayMs)));
  },
});
follower.catchUp().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
