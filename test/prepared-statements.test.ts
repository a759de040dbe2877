import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { harness } from './support/harness';
import { newOrg, TestOrg } from './support/client';
import { loadConfig } from '../src/config';
import { createDb, Db } from '../src/db/knex';
import { closeApp, createApp } from '../src/app';
import { listen } from '../src/http/server';

/**
 * Server-side prepared statements stay bounded per connection (src/db/prepared.ts): thousands of
 * distinct filter shapes leave at most the cap on each connection of the pool, `_in` lists of any
 * length share one statement, and DB_PREPARED_STATEMENTS=off prepares none.
 */
describe('prepared statements per connection', function () {
  this.timeout(120_000);
  const CAP = 25;
  let org: TestOrg;

  async function withApp(prepared: { enabled: boolean; max: number }, run: (get: (path: string) => Promise<number>, db: Db) => Promise<void>) {
    const db = createDb(harness().databaseUrl, 2, 10_000, prepared);
    const app = await createApp({ db, config: { ...loadConfig(), mode: 'production' }, jwtSecret: harness().jwtSecret });
    const server: Server = await listen(app, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await run(async (path) => {
        const res = await fetch(base + path, { headers: { authorization: `Bearer ${org.apiKey}` } });
        await res.arrayBuffer();
        return res.status;
      }, db);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await closeApp(app);
      await db.destroy();
    }
  }

  /** Prepared statements on each connection of the pool (both held at once, so both are seen). */
  async function perConnection(db: Db): Promise<number[]> {
    const client = db.client as Knex.Client;
    const connections = await Promise.all([client.acquireConnection(), client.acquireConnection()]);
    try {
      return await Promise.all(connections.map(async (c: any) => Number((await c.query('SELECT count(*) AS n FROM pg_prepared_statements')).rows[0].n)));
    } finally {
      await Promise.all(connections.map((c) => client.releaseConnection(c)));
    }
  }

  before(async function () {
    // Named statements are what this suite checks; the PgBouncer run (DB_PREPARED_STATEMENTS=off) has none to count.
    if (!harness().inProcess || process.env.DB_PREPARED_STATEMENTS === 'off') return this.skip();
    org = await newOrg();
  });

  // Filter keys in every order, pairs of them, with each orderBy and direction: thousands of shapes.
  function* shapes(): Generator<string> {
    const keys = [
      'code',
      'code_not',
      'code_lt',
      'code_lte',
      'code_gt',
      'code_gte',
      'code_contains',
      'code_starts_with',
      'code_ends_with',
      'name',
      'name_not',
      'name_lt',
      'name_gt',
      'name_contains',
      'name_starts_with',
    ];
    for (const orderBy of ['code', 'createdAt', 'id', 'name', 'startDate', 'updatedAt']) {
      for (const direction of ['ASC', 'DESC']) {
        for (const a of keys) for (const b of keys) if (a !== b) yield `/jobs?limit=5&orderBy=${orderBy}&direction=${direction}&filter[${a}]=J&filter[${b}]=K`;
      }
    }
  }

  it('keeps at most the cap on each connection through thousands of filter shapes', async () => {
    await withApp({ enabled: true, max: CAP }, async (get, db) => {
      const paths = [...shapes()].slice(0, 2000);
      expect(new Set(paths).size).to.equal(2000);
      let next = 0;
      const statuses = new Set<number>();
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (next < paths.length) statuses.add(await get(paths[next++]));
        }),
      );
      expect([...statuses]).to.deep.equal([200]);
      const counts = await perConnection(db);
      // At most the cap; possibly none on a connection just retired and replaced (prepared.ts, RETIRE_AFTER).
      for (const n of counts) expect(n).to.be.at.most(CAP);
    });
  });

  it('sends an _in list as one parameter: its length is not a new statement', async () => {
    await withApp({ enabled: true, max: CAP }, async (get, db) => {
      for (let n = 1; n <= 60; n++) {
        const codes = Array.from({ length: n }, (_, i) => `J-${i}`).join(',');
        expect(await get(`/jobs?filter[code_in]=${codes}&filter[name_not_in]=${codes}`)).to.equal(200);
      }
      const counts = await perConnection(db);
      expect(counts.reduce((a, b) => a + b, 0)).to.be.within(1, 2 * 3);
    });
  });

  it('prepares nothing with DB_PREPARED_STATEMENTS=off', async () => {
    await withApp({ enabled: false, max: CAP }, async (get, db) => {
      for (const path of [...shapes()].slice(0, 40)) expect(await get(path)).to.equal(200);
      expect(await perConnection(db)).to.deep.equal([0, 0]);
    });
  });
});
