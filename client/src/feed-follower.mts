import type { operations } from '../../generated/api-types.js';
import { ApiError, dataOf } from './api-error.mjs';
import type { ProcurementClient } from './client.mjs';
import type { CursorStore } from './cursor-store.mjs';
import type { ChangeEntry } from './types.mjs';

type FeedQuery = NonNullable<operations['listChanges']['parameters']['query']>;

/** What a resync is given: the client, and the feed's head taken before it (the follower goes on from there). */
export interface ResyncContext {
  client: ProcurementClient;
  head: string;
}

export interface FeedFollowerOptions {
  client: ProcurementClient;
  cursorStore: CursorStore;
  /** Applies one entry; entries come in feed order, the next only after this one resolved. */
  handle: (entry: ChangeEntry) => Promise<void> | void;
  types?: FeedQuery['types'];
  fields?: FeedQuery['fields'];
  excludeOrigins?: FeedQuery['excludeOrigins'];
  resource?: FeedQuery['resource'];
  /**
   * Called on `410 Gone` (the stored cursor is older than the feed's retention), and when the store
   * has no cursor yet: rebuild the copy from a full read (`fullReadResync` does it from the lists).
   * The follower then stores `head` and follows from it. Without it, a 410 rejects
   * catchUp()/start() with an ApiError, and a follower without a cursor starts at the oldest entry kept.
   */
  onResync?: (context: ResyncContext) => Promise<void> | void;
  /** Entries per request (default 1000, the feed's largest page). */
  pageSize?: number;
  /** Waits when caught up: from `minIdleMs` (default 1 s), doubled while nothing comes, up to `maxIdleMs` (default 30 s). */
  minIdleMs?: number;
  maxIdleMs?: number;
}

/**
 * Follows the change feed (`GET /changes`) from the stored cursor: `handle` gets every entry in
 * order; the cursor is stored only after the entries before it were handled (at the end of each
 * page, and after the last entry handled when `handle` throws), so a crash repeats at most the
 * page in flight and never skips an entry.
 */
export class FeedFollower {
  private stopping = false;
  private running?: Promise<void>;
  private wakeUp?: () => void;
  private woken = false;

  constructor(private readonly options: FeedFollowerOptions) {}

  /** Handles every entry up to the feed's head as it is when called (and perhaps a few after it). */
  async catchUp(): Promise<void> {
    const head = await this.head();
    for (;;) {
      const page = await this.step();
      if (!page.hasMore || page.nextCursor === head || page.cursors.includes(head)) return;
    }
  }

  /** Follows until stop(): at once while entries wait, then with backoff; resolves when stopped, rejects on an error. */
  start(): Promise<void> {
    if (this.running) throw new Error('FeedFollower: already started');
    this.stopping = false;
    this.running = this.follow().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops after the entry in flight; resolves when start() has. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.running?.catch(() => undefined);
  }

  /** Reads the feed now instead of after the current wait (a webhook says there is something new). */
  wake(): void {
    // Waiting: end the wait. Reading: read once more before the next wait.
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  private async follow(): Promise<void> {
    const { minIdleMs = 1000, maxIdleMs = 30_000 } = this.options;
    let idle = minIdleMs;
    while (!this.stopping) {
      const page = await this.step();
      if (page.hasMore) continue;
      if (page.cursors.length) idle = minIdleMs;
      await this.idle(idle);
      idle = Math.min(maxIdleMs, idle * 2);
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** One page: read, handle, store. */
  private async step(): Promise<{ hasMore: boolean; nextCursor: string; cursors: string[] }> {
    const { client, cursorStore, handle, types, fields, excludeOrigins, resource, pageSize = 1000 } = this.options;
    const after = await cursorStore.get();
    if (after === undefined && this.options.onResync) {
      // No cursor yet: the guide's start, a full read taken from the head, then the feed from it.
      await this.resync();
      return { hasMore: true, nextCursor: '', cursors: [] };
    }
    const result = await client.GET('/changes', { params: { query: { after, limit: pageSize, types, fields, excludeOrigins, resource } } });
    if (result.response.status === 410) {
      await this.resync();
      return { hasMore: true, nextCursor: '', cursors: [] };
    }
    const page = dataOf('GET /changes', result);
    const cursors: string[] = [];
    for (const entry of page.data) {
      if (this.stopping) break;
      try {
        await handle(entry);
      } catch (err) {
        if (cursors.length) await cursorStore.set(cursors[cursors.length - 1]);
        throw err;
      }
      cursors.push(entry.cursor);
    }
    if (cursors.length < page.data.length) {
      // Stopped within the page: keep the position after the last entry handled.
      if (cursors.length) await cursorStore.set(cursors[cursors.length - 1]);
      return { hasMore: true, nextCursor: cursors[cursors.length - 1] ?? after ?? '', cursors };
    }
    // nextCursor also moves past the entries the filters skipped.
    await cursorStore.set(page.nextCursor);
    return { hasMore: page.hasMore, nextCursor: page.nextCursor, cursors };
  }

  private async head(): Promise<string> {
    return dataOf('GET /changes?after=now', await this.options.client.GET('/changes', { params: { query: { after: 'now' } } })).nextCursor;
  }

  private async resync(): Promise<void> {
    const { onResync, client, cursorStore } = this.options;
    if (!onResync) throw new ApiError('GET /changes (the stored cursor is older than the feed keeps; give the FeedFollower an onResync)', 410, undefined);
    // The head first: what changes during the full read comes again through the feed after it.
    const head = await this.head();
    await onResync({ client, head });
    await cursorStore.set(head);
  }
}
