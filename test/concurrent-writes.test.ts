import { expect } from 'chai';
import { expectStatus, newOrg, type TestOrg } from './support/client';
import { headCursor, readAll } from './support/feed';
import { makeOrder } from './support/purchasing-fixtures';

/**
 * Writes racing on one object never answer 5xx: of concurrent DELETEs one succeeds and the others
 * are 404; a PATCH racing a DELETE is 200 or 404; concurrent PATCHes are each 200. A deletion is
 * stored and fed once (one `*.deleted` entry).
 */
interface Target {
  /** The object's path, and what a PATCH of it may send (a different value per call). */
  path: string;
  patch: (n: number) => object;
}
interface Case {
  name: string;
  make(org: TestOrg, n: number): Promise<Target>;
  /** The object can be deleted (DELETE on `path`). */
  deletable: boolean;
}

let serial = 0;
const code = (prefix: string) => `${prefix}-${process.pid % 1000}-${++serial}`;
const created = async (org: TestOrg, path: string, body: object) => expectStatus(await org.api.post(path, body), 201).body as { id: string };

async function jobOf(org: TestOrg): Promise<string> {
  return (await created(org, '/jobs', { code: code('J'), name: 'Riverside Medical Office Building' })).id;
}

const CASES: Case[] = [
  {
    name: 'tax codes',
    deletable: true,
    make: async (org) => ({
      path: `/tax-codes/${(await created(org, '/tax-codes', { code: code('TX'), description: 'Sales tax', taxPercent: 0.07 })).id}`,
      patch: (n) => ({ description: `Sales tax ${n}` }),
    }),
  },
  {
    name: 'vendors',
    deletable: true,
    make: async (org) => ({
      path: `/vendors/${(await created(org, '/vendors', { code: code('V'), name: 'Ferguson' })).id}`,
      patch: (n) => ({ name: `Ferguson ${n}` }),
    }),
  },
  {
    name: 'global phases',
    deletable: true,
    make: async (org) => ({
      path: `/global-phases/${(await created(org, '/global-phases', { code: code('P'), description: 'Concrete' })).id}`,
      patch: (n) => ({ description: `Concrete ${n}` }),
    }),
  },
  {
    name: 'global categories',
    deletable: true,
    make: async (org) => ({
      path: `/global-categories/${(await created(org, '/global-categories', { code: code('C'), description: 'Materials' })).id}`,
      patch: (n) => ({ description: `Materials ${n}` }),
    }),
  },
  {
    name: 'job phases',
    deletable: true,
    make: async (org) => {
      const job = await jobOf(org);
      const phase = await created(org, `/jobs/${job}/phases`, { code: code('JP'), description: 'Podium concrete' });
      return { path: `/jobs/${job}/phases/${phase.id}`, patch: (n) => ({ description: `Podium concrete ${n}` }) };
    },
  },
  {
    name: 'job categories',
    deletable: true,
    make: async (org) => {
      const job = await jobOf(org);
      const category = await created(org, `/jobs/${job}/categories`, { code: code('JC'), description: 'Labor' });
      return { path: `/jobs/${job}/categories/${category.id}`, patch: (n) => ({ description: `Labor ${n}` }) };
    },
  },
  {
    name: 'locations',
    deletable: true,
    make: async (org) => ({
      path: `/locations/${(await created(org, '/locations', { name: 'Riverside jobsite', type: 'Jobsite' })).id}`,
      patch: (n) => ({ name: `Riverside jobsite ${n}` }),
    }),
  },
  {
    name: 'items',
    deletable: true,
    make: async (org) => {
      const order = await makeOrder(org, {}, [{ line_number: 1, description: '2x4 stud' }]);
      const [item] = expectStatus(await org.api.get(`/orders/${order}/items`), 200).body as { id: string }[];
      return { path: `/items/${item.id}`, patch: (n) => ({ description: `2x4 stud ${n}` }) };
    },
  },
  {
    name: 'orders',
    deletable: true,
    make: async (org) => ({ path: `/orders/${await makeOrder(org)}`, patch: (n) => ({ notes: `Deliver before ${n} am.` }) }),
  },
  {
    name: 'groups',
    deletable: false,
    make: async (org) => ({ path: `/groups/${(await created(org, '/groups', { name: code('Group') })).id}`, patch: (n) => ({ name: `Northern ${n}` }) }),
  },
  {
    name: 'units of measure',
    deletable: false,
    make: async (org) => ({
      path: `/units-of-measure/${(await created(org, '/units-of-measure', { code: code('U'), description: 'Linear foot' })).id}`,
      patch: (n) => ({ description: `Linear foot ${n}` }),
    }),
  },
  {
    name: 'jobs',
    deletable: false,
    make: async (org) => ({ path: `/jobs/${await jobOf(org)}`, patch: (n) => ({ name: `Riverside ${n}` }) }),
  },
];

const ROUNDS = 4;
const PARALLEL = 5;

describe('concurrent writes to one object (no 5xx, a deletion stored and fed once)', function () {
  this.timeout(180_000);
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  for (const c of CASES) {
    it(`${c.name}: ${PARALLEL} concurrent PATCHes each 200`, async () => {
      const target = await c.make(org, 0);
      const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, n) => org.api.patch(target.path, target.patch(n))));
      expect(
        answers.map((a) => a.status),
        answers.map((a) => a.text).join('\n'),
      ).to.deep.equal(Array(PARALLEL).fill(200));
    });

    if (!c.deletable) continue;

    it(`${c.name}: ${PARALLEL} concurrent DELETEs give one 200 and 404s, and one *.deleted entry`, async () => {
      const cursor = await headCursor(org.api);
      const ids: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const target = await c.make(org, round);
        ids.push(target.path.split('/').pop()!);
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => org.api.delete(target.path)));
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses, answers.map((a) => a.text).join('\n')).to.deep.equal([200, ...Array(PARALLEL - 1).fill(404)]);
      }
      const { entries } = await readAll(org.api, cursor);
      for (const id of ids)
        expect(
          entries.filter((e) => e.id === id && e.type.endsWith('.deleted')),
          id,
        ).to.have.length(1);
    });

    it(`${c.name}: a PATCH racing a DELETE is 200 or 404, the DELETE 200`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const target = await c.make(org, round);
        const [patched, deleted] = await Promise.all([org.api.patch(target.path, target.patch(round)), org.api.delete(target.path)]);
        expect(patched.status, patched.text).to.be.oneOf([200, 404]);
        expect(deleted.status, deleted.text).to.equal(200);
      }
    });
  }
});
