import { expect } from 'chai';
import type { Knex } from 'knex';
import { expectStatus, newOrg, PathOf, TestOrg } from './support/client';
import { harness } from './support/harness';
import { createDb, Db } from '../src/db/knex';
import { oneByIdJson, oneByIdOrCodeWithDigest } from '../src/db/resource';
import { jobs } from '../src/resources/jobs/queries';
import { locations } from '../src/resources/locations/queries';
// The reconciled resources: a job's single read carries its stored state's digest (its ETag).
import '../src/resources';

/**
 * Single reads by `:idOrCode` that arrive together share one statement (src/db/coalesced-reads.ts,
 * resource.ts): each request is answered exactly as if it had been read alone, the caller's
 * organization only, and the database is asked once.
 */
describe('single reads coalesced', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let other: TestOrg;
  const codes = ['J-C01', 'J-C02', 'J-C03', 'J-C04', 'J-C05'];
  const ids: string[] = [];

  before(async () => {
    org = await newOrg();
    other = await newOrg();
    const group = expectStatus(await org.api.post('/groups', { name: 'Coalesced reads', code: 'COAL' }), 201).body;
    for (const [n, code] of codes.entries()) {
      const job = expectStatus(await org.api.post('/jobs', { code, name: `Coalesced ${n}`, ...(n % 2 ? { groupIds: [group.id] } : {}) }), 201).body;
      ids.push(job.id);
    }
    // Another organization's job under a code of the first's, and one code only it has.
    expectStatus(await other.api.post('/jobs', { code: 'J-C01', name: 'Not yours' }), 201);
    expectStatus(await other.api.post('/jobs', { code: 'J-OTHER', name: 'Not yours either' }), 201);
  });

  /** What a GET answers, but for a problem's request id (its own per request). */
  const answer = async (path: PathOf<'get'>) => {
    const res = await org.api.get(path);
    const { requestId, ...body } = res.body as Record<string, unknown>;
    expect(requestId === undefined).to.equal(res.status === 200);
    return { status: res.status, body, etag: res.headers.get('etag') };
  };

  it('answers GETs sent together each as when sent alone: codes, IDs, the same twice, missing, another organization’s', async () => {
    const paths: PathOf<'get'>[] = [
      ...codes.map((c) => `/jobs/${c}` as const),
      ...ids.map((id) => `/jobs/${id}` as const),
      `/jobs/${codes[2]}` as const,
      '/jobs/J-NONE',
      '/jobs/J-OTHER',
      '/jobs/b0b0b0b0-0000-4000-8000-00000000000b',
    ];
    const alone = [];
    for (const path of paths) alone.push(await answer(path));
    expect(alone.map((a) => a.status)).to.deep.equal([...codes.map(() => 200), ...ids.map(() => 200), 200, 404, 404, 404]);
    expect(
      alone.slice(0, codes.length).every((a) => a.etag),
      'every job carries its ETag',
    ).to.equal(true);
    for (let round = 0; round < 3; round++) {
      expect(await Promise.all(paths.map(answer))).to.deep.equal(alone);
    }
  });

  describe('at the database', () => {
    let db: Db;
    let statements = 0;

    before(() => {
      db = createDb(harness().databaseUrl, 4);
      // Every statement takes a connection from the pool: counting those counts the statements.
      const client = db.client as Knex.Client & { acquireConnection(): Promise<unknown> };
      const acquire = client.acquireConnection.bind(client);
      client.acquireConnection = () => {
        statements++;
        return acquire();
      };
    });
    after(() => db.destroy());

    /** Each key read alone, in a transaction (never coalesced): what every read must answer. */
    const readAlone = (orgId: string, keys: string[]) =>
      db.transaction(async (trx) => {
        const found = [];
        for (const key of keys) found.push(await oneByIdOrCodeWithDigest(trx, jobs, orgId, key));
        return found;
      });

    const together = async (orgId: string, keys: string[]) => {
      statements = 0;
      const found = await Promise.all(keys.map((key) => oneByIdOrCodeWithDigest(db, jobs, orgId, key)));
      return { found, statements };
    };

    it('reads the keys of one moment with one statement, each key its own answer (the statement of 8 for 6 keys)', async () => {
      const keys = [codes[0], codes[3], 'J-NONE', codes[3], 'J-OTHER', codes[1]];
      const alone = await readAlone(org.id, keys);
      expect(alone.map((a) => a?.json && JSON.parse(a.json as string).code)).to.deep.equal([codes[0], codes[3], undefined, codes[3], undefined, codes[1]]);
      expect(alone[0]!.digest, 'the stored state is current: the digest comes with the read').to.match(/^[0-9a-f]{64}$/);
      expect(await together(org.id, keys)).to.deep.equal({ found: alone, statements: 1 });
    });

    it('reads IDs the same way, and a lone read with the single statement', async () => {
      const keys = [ids[4], ids[0], 'b0b0b0b0-0000-4000-8000-00000000000b'];
      expect(await together(org.id, keys)).to.deep.equal({ found: await readAlone(org.id, keys), statements: 1 });
      expect(await together(org.id, [ids[2]])).to.deep.equal({ found: await readAlone(org.id, [ids[2]]), statements: 1 });
    });

    it('reads a resource without codes by ID only, the same way (the statement of 4 for 3 IDs)', async () => {
      const ids = [];
      for (const name of ['Coalesced yard A', 'Coalesced yard B']) {
        ids.push(expectStatus(await org.api.post('/locations', { name, type: 'Warehouse' }), 201).body.id);
      }
      const keys = [ids[1], 'b0b0b0b0-0000-4000-8000-00000000000b', ids[0]];
      const alone = await db.transaction(async (trx) => {
        const found = [];
        for (const key of keys) found.push(await oneByIdJson(trx, locations, org.id, key));
        return found;
      });
      expect(alone.map((a) => a && JSON.parse(a as string).name)).to.deep.equal(['Coalesced yard B', undefined, 'Coalesced yard A']);
      statements = 0;
      expect(await Promise.all(keys.map((key) => oneByIdJson(db, locations, org.id, key)))).to.deep.equal(alone);
      expect(statements).to.equal(1);
      // Another organization's IDs find nothing.
      expect(await Promise.all(ids.map((id) => oneByIdJson(db, locations, other.id, id)))).to.deep.equal([undefined, undefined]);
    });

    it('keeps organizations apart: the same code read for two organizations at once answers each its own', async () => {
      statements = 0;
      const [mine, theirs] = await Promise.all([oneByIdOrCodeWithDigest(db, jobs, org.id, 'J-C01'), oneByIdOrCodeWithDigest(db, jobs, other.id, 'J-C01')]);
      expect(statements, 'one statement per organization').to.equal(2);
      expect(JSON.parse(mine!.json as string)).to.include({ id: ids[0], name: 'Coalesced 0' });
      expect(JSON.parse(theirs!.json as string)).to.include({ name: 'Not yours' });
    });

    it('sends at most 16 keys per statement: 17 reads of one moment are two statements', async () => {
      const keys = Array.from({ length: 17 }, (_, n) => codes[n % codes.length]);
      expect(await together(org.id, keys)).to.deep.equal({ found: await readAlone(org.id, keys), statements: 2 });
    });
  });
});
