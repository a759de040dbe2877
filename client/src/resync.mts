import type { FeedFollowerOptions, ResyncContext } from './feed-follower.mjs';
import { paginate, type ListItem, type ListPath } from './paginate.mjs';

/** Lists without path parameters (a full read of a resource). */
type TopListPath = { [P in ListPath]: P extends `${string}{${string}` ? never : P }[ListPath];

export interface FullReadOptions<L extends Record<string, TopListPath>> {
  /** The lists to read, by the feed's resource name: `{ vendor: '/vendors', item: '/items' }`. */
  lists: L;
  /** Called first: e.g. forget the copy, or mark it for a sweep of what the read does not return. */
  begin?: () => Promise<void> | void;
  /** Stores one object as read (its resource's list gives it), like an entry's `data`. */
  apply: (resource: keyof L & string, object: ListItem<L[keyof L]>) => Promise<void> | void;
  /** Called last. */
  end?: () => Promise<void> | void;
}

/**
 * A FeedFollower's `onResync` that rebuilds the copy from a full read, the guide's recipe: the
 * follower has taken the feed's head (`after=now`) first; this reads every list with `paginate`;
 * the follower then follows from the head, so a change made during the read comes again and nothing
 * is missed.
 */
export function fullReadResync<L extends Record<string, TopListPath>>(options: FullReadOptions<L>): NonNullable<FeedFollowerOptions['onResync']> {
  return async ({ client }: ResyncContext) => {
    await options.begin?.();
    for (const [resource, path] of Object.entries(options.lists)) {
      for await (const object of paginate(client, path as ListPath, {} as never)) await options.apply(resource, object as never);
    }
    await options.end?.();
  };
}
