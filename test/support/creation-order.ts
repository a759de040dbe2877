import { harness } from './harness';

/**
 * Gives rows of `table` distinct creation times in the order given (one second apart, the last
 * one a second ago). Rows inserted one after another can share a created_at on a loaded machine,
 * and a default order by createdAt then falls back to the ID, which is random: a test about the
 * default order makes that order explicit with this.
 */
export async function staggerCreatedAt(table: string, ids: string[]): Promise<void> {
  const db = harness().db;
  for (const [i, id] of ids.entries()) {
    await db(table)
      .where({ id })
      .update({ created_at: db.raw('now() - make_interval(secs => ?)', [ids.length - i]) });
  }
}
