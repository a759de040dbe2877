import { expect } from 'chai';
import knex from 'knex';
import { CAPTURED_TABLES } from '../../migrations/20261206000000_feed_captures';
import { OWNERS } from '../../migrations/20261206040000_feed_capture_owners';
import { RECONCILED } from '../../src/resources';
import { scoped } from '../../src/db/resource';
import { selectList } from '../../src/db/columns';
import type { ChangeEntry } from '../../src/feed/append';
import { owedRebuilds } from '../../src/feed/object-states';

/**
 * Every table a reconciled resource's read joins besides its own is captured for that resource
 * (migration 20261206040000 OWNERS), unless it is another resource's main table whose changes owe
 * the showing objects a rebuild instead (src/feed/object-states.ts SHOWN_IN, asked through
 * owedRebuilds: the API emits no entries of them either) or one listed below with its reason. A
 * join added to a read without a capture trigger or a SHOWN_IN pair fails here.
 */
const rebuilt = (resource: string, table: string): boolean => {
  const via = CAPTURED_TABLES[table];
  if (!via) return false;
  const deleted = { type: `${via}.deleted`, resource: via, id: '00000000-0000-4000-8000-000000000001', data: {} } as ChangeEntry;
  return owedRebuilds([deleted]).whole.includes(resource);
};

/** Joins left out, with why. */
const NOT_CAPTURED: Record<string, Record<string, string>> = {
  change_order: { orders: 'the inner join only requires the order (its deletion cascades to its change orders, which are captured)' },
};

const k = knex({ client: 'pg' });

describe('feed capture of the tables other objects’ reads show (migration 20261206040000)', () => {
  it('captures every table a read joins besides its own, for the resource reading it', () => {
    const owners = new Set(Object.entries(OWNERS).flatMap(([table, list]) => list.map((o) => `${o.resource} ${table}`)));
    const missing: string[] = [];
    for (const [resource, def] of Object.entries(RECONCILED.defs)) {
      const sql = scoped(k as never, def!, '00000000-0000-0000-0000-000000000000')
        .select(k.raw(selectList(def!.columns)))
        .toString();
      const tables = new Set([...sql.matchAll(/\b(?:from|join)\s+"?([a-z_]+)"?/gi)].map((m) => m[1]));
      for (const table of tables) {
        if (table === def!.table || table === 'LATERAL' || owners.has(`${resource} ${table}`)) continue;
        if (rebuilt(resource, table) || NOT_CAPTURED[resource]?.[table]) continue;
        missing.push(`${resource} ${table}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('names only tables and resources that exist', () => {
    const resources = new Set(Object.values(CAPTURED_TABLES));
    for (const list of Object.values(OWNERS)) for (const o of list) expect(resources.has(o.resource), o.resource).to.equal(true);
  });
});
