import { expect } from 'chai';
import { ApiResponse, expectStatus, newOrg, TestOrg } from './support/client';
import { harness } from './support/harness';
import { Change, readAll, replay } from './support/feed';
import { startInstance } from './support/instance';

/**
 * The race of issue #13, as a test: long batch upserts, short PATCHes of rows the batches also
 * write and deletes run concurrently through two service instances, each with its own pool, on
 * one database, while a reader follows nextCursor. After each round the reader's replay of the
 * feed must equal the final state of every vendor (deleted ones included) exactly. Half the writes
 * change nothing (src/feed/unchanged.ts): they record nothing, and the replay must still match.
 */
const CODES = 600;
const code = (i: number) => `RACE-${String(i).padStart(4, '0')}`;
/** JSON with keys sorted: objects compare by content, whatever order a query built them in. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A second, independent instance of the service: its own app and its own knex pool. */
/** A second service instance with its own pool on the same database (test/support/instance.ts). */
const secondInstance = () => startInstance();

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

/** Every vendor, deleted ones included, as the list endpoint returns them. */
async function allVendors(org: TestOrg): Promise<Map<string, any>> {
  const all = new Map<string, any>();
  for (let offset = 0; ; offset += 1000) {
    const page: any[] = expectStatus(await org.api.get(`/vendors?includeDeleted=true&orderBy=id&limit=1000&offset=${offset}`), 200).body;
    for (const v of page) all.set(`vendor:${v.id}`, v);
    if (page.length < 1000) return all;
  }
}

describe('change feed under concurrent writers (two instances)', () => {
  let org: TestOrg;
  let second: Awaited<ReturnType<typeof secondInstance>>;
  before(async function () {
    // A second app compiles its validators (test mode): slow on a loaded machine.
    this.timeout(120_000);
    org = await newOrg();
    second = await secondInstance();
  });
  after(async () => second?.close());

  it('a reader following nextCursor replays exactly the final state, every round', async function () {
    this.timeout(120_000);
    const bases = [harness().baseUrl, second.baseUrl];
    const replica = new Map<string, any>();
    let cursor: string | undefined;
    let seen = 0;
    const started = Date.now();

    for (let round = 0; round < 3 && (round < 2 || Date.now() - started < 15_000); round++) {
      let writing = true;
      const failures: string[] = [];
      const expectOk = (what: string, res: ApiResponse, allowed: number[] = []) => {
        if (res.status >= 300 && !allowed.includes(res.status)) failures.push(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
      };

      // Two batch writers, one per instance, each upserting every code (in the same order, so
      // they queue on the same rows rather than deadlock).
      const batch = async (w: number) => {
        for (let n = 0; n < 3; n++) {
          // Half the elements are the same in every batch of the round: after the first, no-ops (nothing recorded).
          const inputs = Array.from({ length: CODES }, (_, i) => ({
            code: code(i),
            name: i % 2 ? `round ${round} #${i}` : `round ${round} writer ${w} batch ${n} #${i}`,
          }));
          expectOk('batch', await call(bases[w], org.apiKey, 'POST', '/vendors/batch', { inputs }));
        }
      };
      // Short PATCHes of rows the batches also write, alternating instances.
      const patcher = async () => {
        for (let n = 0; n < 60; n++) {
          // Every other PATCH repeats the one before it: a no-op unless a batch wrote the row in between.
          const m = n - (n % 2);
          const i = (m * 37 + round * 11) % CODES;
          expectOk('patch', await call(bases[n % 2], org.apiKey, 'PATCH', `/vendors/${code(i)}`, { name: `round ${round} patch ${m}` }), [404]);
        }
      };
      // Deletes (the next batch creates the code again as a new vendor).
      const deleter = async () => {
        for (let n = 0; n < 25; n++) {
          const i = (n * 53 + round * 7) % CODES;
          expectOk('delete', await call(bases[(n + 1) % 2], org.apiKey, 'DELETE', `/vendors/${code(i)}`), [404]);
        }
      };
      // The reader follows nextCursor while they write.
      const reader = async () => {
        for (;;) {
          const done = !writing;
          const { entries, cursor: next } = await readAll(org.api, cursor);
          // The vendors' entries (the organization's first entry is its admin user's).
          replay(
            replica,
            entries.filter((e) => e.resource === 'vendor'),
            true,
          );
          seen += entries.length;
          cursor = next;
          if (done) return;
          if (!entries.length) await sleep(10);
        }
      };

      const readerDone = reader();
      // The first round starts with an empty organization: the batches create, later ones update.
      await Promise.all([batch(0), batch(1), patcher(), deleter()]);
      writing = false;
      await readerDone;

      expect(failures, `round ${round}`).to.deep.equal([]);
      const actual = await allVendors(org);
      expect(actual.size, `round ${round}: vendors`).to.be.greaterThan(CODES);
      const mismatched = [...actual.keys()].filter((k) => canonical(replica.get(k)) !== canonical(actual.get(k)));
      expect(
        mismatched.slice(0, 5).map((k) => ({ replayed: replica.get(k), actual: actual.get(k) })),
        `round ${round}: ${mismatched.length} vendors differ`,
      ).to.deep.equal([]);
      expect(
        [...replica.keys()].filter((k) => !actual.has(k)),
        `round ${round}: replayed vendors that do not exist`,
      ).to.deep.equal([]);
    }
    // Every change was seen once: the changing half of the batches (2 x 3 x 300 per round, two rounds at least), the
    // first write of the other half, and the PATCHes and deletes that found their row and changed it.
    expect(seen).to.be.greaterThan(2 * 3 * (CODES / 2) * 2);
  });

  it('the feed has no hole and no duplicate: positions 1..n, each entry once', async () => {
    const { entries } = await readAll(org.api, undefined);
    const positions: { position: string }[] = await harness().db('change_feed').where({ organization_id: org.id }).orderBy('position').select('position');
    expect(positions.map((p) => Number(p.position))).to.deep.equal(positions.map((_, i) => i + 1));
    expect(new Set(entries.map((e: Change) => e.cursor)).size).to.equal(entries.length);
    expect(entries.length).to.equal(positions.length);
  });

  describe('a write killed mid-transaction leaves neither rows nor entries', () => {
    const batchOf = (prefix: string) => Array.from({ length: 1000 }, (_, i) => ({ code: `${prefix}-${i}`, name: `Killed ${i}` }));

    /** Runs the batch through the second instance, terminates its backend once it waits on `waitsOn`, and checks nothing of it remains. */
    async function killWhileWaiting(prefix: string, holdLock: (tx: any) => Promise<void>, waitingQuery: RegExp) {
      const before = (await readAll(org.api, undefined)).entries.length;
      const rows = () => harness().db('vendors').where({ organization_id: org.id }).whereLike('code', `${prefix}-%`).count('* as n').first();
      const rowsBefore = await rows();
      const holder = await harness().db.transaction();
      try {
        await holdLock(holder);
        const request = call(second.baseUrl, org.apiKey, 'POST', '/vendors/batch', { inputs: batchOf(prefix) });
        let pid: number | undefined;
        for (let tries = 0; pid === undefined && tries < 500; tries++) {
          const { rows } = await harness().db.raw(
            `SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          );
          pid = rows.find((r: { query: string }) => waitingQuery.test(r.query))?.pid;
          if (pid === undefined) await sleep(20);
        }
        expect(pid, 'the batch never waited on the held lock').to.be.a('number');
        await harness().db.raw('SELECT pg_terminate_backend(?)', [pid!]);
        const res = await request;
        expect(res.status).to.be.at.least(500);
      } finally {
        await holder.rollback();
      }
      expect(await rows()).to.deep.equal(rowsBefore);
      expect((await readAll(org.api, undefined)).entries.length).to.equal(before);
    }

    it('killed while appending its entries (all its rows written, waiting on the feed head)', async function () {
      this.timeout(60_000);
      await killWhileWaiting('KILL-HEAD', (tx) => tx.raw('SELECT position FROM feed_heads WHERE organization_id = ? FOR UPDATE', [org.id]), /feed_heads/);
    });

    it('killed in the middle of its upsert statement (waiting on a row it shares with another writer)', async function () {
      this.timeout(60_000);
      // A vendor another transaction is inserting: the batch's locking read of the stored vendors
      // does not see it, and its upsert waits on that code's index entry with 500 rows written.
      await killWhileWaiting(
        'KILL-MID',
        (tx) => tx.raw(`INSERT INTO vendors (organization_id, code, name) VALUES (?, 'KILL-MID-500', 'Held')`, [org.id]),
        /INSERT INTO "vendors"/,
      );
    });
  });
});
