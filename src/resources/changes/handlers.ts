import { ApiError, invalidField } from '../../errors';
import type { Handlers, Schema } from '../../http/handler';
import type { JsonParts } from '../../db/json';
import { decodeCursor } from '../../feed/cursor';
import { readChanges } from '../../feed/read';
import { checkChangeTypes } from '../../feed/change-type-filter';
import { resolveSelf } from '../../http/origin';

/** A list parameter as given: repeated, comma-separated, or both. */
const listOf = (given: string[] | undefined): string[] | undefined =>
  given
    ?.flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);

function parseTypes(given: string[] | undefined): string[] | undefined {
  const types = listOf(given);
  if (types) checkChangeTypes('query.types', types);
  return types;
}

/** A value of `after` that is not a cursor of the caller's feed (also the mock's answer to one of no feed's form). */
export const notAFeedCursor = () =>
  invalidField('query.after', 'cursor', 'is not a cursor of this feed (use a cursor or nextCursor the feed returned, or now)');

const gone = (retentionDays: number) => {
  const message = `The changes after this cursor are no longer kept (entries are kept ${retentionDays} days); resynchronize with a full export, then follow the feed from after=now taken before it.`;
  return new ApiError(410, 'cursor-expired', 'Gone', [{ message, field: 'query.after' }]);
};

export const changeHandlers: Handlers<'listChanges'> = {
  listChanges: async ({ db, caller, query, config }) => {
    const orgId = caller.organizationId;
    let after: number | 'now' | undefined;
    if (query.after === 'now') after = 'now';
    else if (query.after !== undefined) {
      after = decodeCursor(orgId, query.after);
      if (after === undefined) throw notAFeedCursor();
    }
    const excluded = listOf(query.excludeOrigins);
    const page = await readChanges(db, orgId, {
      after,
      limit: query.limit ?? 100,
      types: parseTypes(query.types),
      resource: query.resource,
      fields: listOf(query.fields),
      excludeOrigins: excluded && resolveSelf(caller, excluded),
    });
    if (!page.ok) throw gone(config.changeFeedRetentionDays);
    // The page's Link (src/http/links.ts): the next page while more entries are already committed.
    page.page.nextQuery = page.hasMore ? { after: page.nextCursor } : null;
    return { status: 200, body: page.page as JsonParts<Schema<'ChangePage'>> };
  },
};
