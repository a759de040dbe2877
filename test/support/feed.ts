import { expect } from 'chai';
import type { Client } from './client';
import { expectStatus } from './client';

/** An entry of GET /changes. */
export interface Change {
  cursor: string;
  type: string;
  resource: string;
  id: string;
  occurredAt: string;
  data: any;
  changedFields?: string[];
  previous?: Record<string, any>;
  origin?: { credentialType: string };
}

/** The cursor of the newest change (`after=now`). */
export async function headCursor(api: Client): Promise<string> {
  const page = expectStatus(await api.get('/changes?after=now'), 200).body;
  expect(page.data).to.deep.equal([]);
  return page.nextCursor;
}

/** Every entry after `cursor` (all pages), and the cursor to continue from. */
export async function readAll(api: Client, cursor: string | undefined, query = '', limit = 1000): Promise<{ entries: Change[]; cursor: string }> {
  const entries: Change[] = [];
  for (;;) {
    const after = cursor === undefined ? '' : `&after=${cursor}`;
    const page = expectStatus(await api.get(`/changes?limit=${limit}${after}${query}`), 200).body;
    entries.push(...page.data);
    cursor = page.nextCursor;
    if (!page.hasMore) return { entries, cursor: cursor! };
  }
}

/**
 * Applies entries to a replica keyed by resource and id: a deletion removes the object (or, for
 * resources listed with `includeDeleted`, keeps its tombstone), anything else stores `data`.
 */
export function replay(replica: Map<string, any>, entries: Change[], keepDeleted = false): void {
  for (const e of entries) {
    const key = `${e.resource}:${e.resource === 'order_tag' ? `${e.data.orderId}:` : ''}${e.id}`;
    if (e.type.endsWith('.deleted') && !keepDeleted) replica.delete(key);
    else replica.set(key, e.data);
  }
}
