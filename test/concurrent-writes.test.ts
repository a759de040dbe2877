import { expect } from 'chai';
import { onlyDirect } from './support/proxy';
import { expectStatus, newOrg, type ApiResponse, type TestOrg } from './support/client';
import { headCursor, readAll } from './support/feed';
import { makeOrder } from './support/purchasing-fixtures';
import { makeJob, makeLocation } from './support/release-fixtures';
import * as billing from './support/billing-fixtures';
import { contractOperations } from '../src/http/contract';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request (as test/webhooks.test.ts).
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/**
 * Writes racing on one object never answer 5xx: of concurrent DELETEs one succeeds and the others
 * are 404; a PATCH racing a DELETE is 200 or 404; concurrent PATCHes are each 200. A deletion is
 * stored and fed once (one `*.deleted` entry).
 */
/**
 * A row per PATCH and DELETE of the contract: its writes are sent by one generic loop, so they go through
 * `unchecked` (the rows' creation requests are typed).
 */
interface Target {
  /** The object's path, and what a PATCH of it may send (a different value per call). */
  path: string;
  patch: (n: number) => object;
}
interface Case {
  name: string;
  /** The contract's operations this row races (its PATCH and, when deletable, its DELETE). */
  ops: string[];
  make(org: TestOrg, n: number): Promise<Target>;
  /** The object can be deleted (DELETE on `path`). */
  deletable: boolean;
}

let serial = 0;
const code = (prefix: string) => `${prefix}-${process.pid % 1000}-${++serial}`;
const created = async (res: Promise<ApiResponse>) => expectStatus(await res, 201).body as { id: string };

async function jobOf(org: TestOrg): Promise<string> {
  return (await created(org.api.post('/jobs', { code: code('J'), name: 'Riverside Medical Office Building' }))).id;
}

async function bomItemOf(org: TestOrg): Promise<string> {
  const job = await jobOf(org);
  const bom = (expectStatus(await org.api.post(`/jobs/${job}/billOfMaterials`), 201).body as { id: string }).id;
  const [item] = expectStatus(
    await org.api.post(`/billOfMaterials/${bom}/items`, { billOfMaterialsItems: [{ description: 'EMT conduit', estimatedQuantity: 10 }] }),
    201,
  ).body as { id: string }[];
  return item.id;
}

const CASES: Case[] = [
  {
    name: 'job phase categories',
    ops: ['updateJobPhaseCategory', 'deleteJobPhaseCategory'],
    deletable: true,
    make: async (org) => {
      const job = await jobOf(org);
      const phase = await created(org.api.post(`/jobs/${job}/phases`, { code: code('JP'), description: 'Podium concrete' }));
      const category = await created(org.api.post(`/jobs/${job}/phases/${phase.id}/categories`, { code: code('JPC'), description: 'Labor' }));
      return { path: `/jobs/${job}/phases/${phase.id}/categories/${category.id}`, patch: (n) => ({ description: `Labor ${n}` }) };
    },
  },
  {
    name: 'bill of materials items',
    ops: ['updateBillOfMaterialsItem', 'deleteBillOfMaterialsItem'],
    deletable: true,
    make: async (org) => ({ path: `/billOfMaterialsItem/${await bomItemOf(org)}`, patch: (n) => ({ input: { estimatedQuantity: 10 + n } }) }),
  },
  {
    name: 'webhook endpoints',
    ops: ['updateWebhookEndpoint', 'deleteWebhookEndpoint'],
    deletable: true,
    make: async (org) => ({
      path: `/webhook-endpoints/${(await created(org.api.post('/webhook-endpoints', { url: 'https://127.0.0.1:9/hooks', enabled: false }))).id}`,
      patch: (n) => ({ description: `ERP sync ${n}` }),
    }),
  },
  {
    name: 'tax codes',
    ops: ['updateTaxCode', 'deleteTaxCode'],
    deletable: true,
    make: async (org) => ({
      path: `/tax-codes/${(await created(org.api.post('/tax-codes', { code: code('TX'), description: 'Sales tax', taxPercent: 0.07 }))).id}`,
      patch: (n) => ({ description: `Sales tax ${n}` }),
    }),
  },
  {
    name: 'vendors',
    ops: ['updateVendor', 'deleteVendor'],
    deletable: true,
    make: async (org) => ({
      path: `/vendors/${(await created(org.api.post('/vendors', { code: code('V'), name: 'Ferguson' }))).id}`,
      patch: (n) => ({ name: `Ferguson ${n}` }),
    }),
  },
  {
    name: 'global phases',
    ops: ['updateGlobalPhase', 'deleteGlobalPhase'],
    deletable: true,
    make: async (org) => ({
      path: `/global-phases/${(await created(org.api.post('/global-phases', { code: code('P'), description: 'Concrete' }))).id}`,
      patch: (n) => ({ description: `Concrete ${n}` }),
    }),
  },
  {
    name: 'global categories',
    ops: ['updateGlobalCategory', 'deleteGlobalCategory'],
    deletable: true,
    make: async (org) => ({
      path: `/global-categories/${(await created(org.api.post('/global-categories', { code: code('C'), description: 'Materials' }))).id}`,
      patch: (n) => ({ description: `Materials ${n}` }),
    }),
  },
  {
    name: 'job phases',
    ops: ['updateJobPhase', 'deleteJobPhase'],
    deletable: true,
    make: async (org) => {
      const job = await jobOf(org);
      const phase = await created(org.api.post(`/jobs/${job}/phases`, { code: code('JP'), description: 'Podium concrete' }));
      return { path: `/jobs/${job}/phases/${phase.id}`, patch: (n) => ({ description: `Podium concrete ${n}` }) };
    },
  },
  {
    name: 'job categories',
    ops: ['updateJobCategory', 'deleteJobCategory'],
    deletable: true,
    make: async (org) => {
      const job = await jobOf(org);
      const category = await created(org.api.post(`/jobs/${job}/categories`, { code: code('JC'), description: 'Labor' }));
      return { path: `/jobs/${job}/categories/${category.id}`, patch: (n) => ({ description: `Labor ${n}` }) };
    },
  },
  {
    name: 'locations',
    ops: ['updateLocation', 'deleteLocation'],
    deletable: true,
    make: async (org) => ({
      path: `/locations/${(await created(org.api.post('/locations', { name: 'Riverside jobsite', type: 'Jobsite' }))).id}`,
      patch: (n) => ({ name: `Riverside jobsite ${n}` }),
    }),
  },
  {
    name: 'items',
    ops: ['updateItem', 'deleteItem'],
    deletable: true,
    make: async (org) => {
      const order = await makeOrder(org, {}, [{ line_number: 1, description: '2x4 stud' }]);
      const [item] = expectStatus(await org.api.get(`/orders/${order}/items`), 200).body as { id: string }[];
      return { path: `/items/${item.id}`, patch: (n) => ({ description: `2x4 stud ${n}` }) };
    },
  },
  {
    name: 'orders',
    ops: ['updateOrder', 'deleteOrder'],
    deletable: true,
    make: async (org) => ({ path: `/orders/${await makeOrder(org)}`, patch: (n) => ({ notes: `Deliver before ${n} am.` }) }),
  },
  {
    name: 'groups',
    ops: ['updateGroup'],
    deletable: false,
    make: async (org) => ({
      path: `/groups/${(await created(org.api.post('/groups', { name: code('Group') }))).id}`,
      patch: (n) => ({ name: `Northern ${n}` }),
    }),
  },
  {
    name: 'units of measure',
    ops: ['updateUnitOfMeasure'],
    deletable: false,
    make: async (org) => ({
      path: `/units-of-measure/${(await created(org.api.post('/units-of-measure', { code: code('U'), description: 'Linear foot' }))).id}`,
      patch: (n) => ({ description: `Linear foot ${n}` }),
    }),
  },
  {
    name: 'jobs',
    ops: ['updateJob'],
    deletable: false,
    make: async (org) => ({ path: `/jobs/${await jobOf(org)}`, patch: (n) => ({ name: `Riverside ${n}` }) }),
  },
];

/**
 * The other writes: links, batches and state changes, raced as the same request sent {@link PARALLEL}
 * times at once (`each`: every answer 200; `once`: one 200 and 404s; `idempotent`: removing a link is
 * idempotent by design, as the contract says ("detaching one that is not attached changes
 * nothing"), so every answer is 200 there too, never a 404 or 5xx).
 */
interface Racer {
  op: string;
  expect: 'each' | 'once' | 'idempotent';
  make(org: TestOrg): Promise<{ method: 'PATCH' | 'DELETE'; path: string; body?: (n: number) => unknown }>;
}

const RACERS: Racer[] = [
  {
    op: 'removeJobLocation',
    expect: 'idempotent',
    make: async (org) => {
      const job = await makeJob(org, code('J'));
      const location = await makeLocation(org);
      expectStatus(await org.api.post(`/jobs/${job}/locations?locationId=${location}`), 200);
      return { method: 'DELETE', path: `/jobs/${job}/locations?locationId=${location}` };
    },
  },
  {
    op: 'removeJobUser',
    expect: 'idempotent',
    make: async (org) => {
      const job = await makeJob(org, code('J'));
      expectStatus(await org.api.post(`/jobs/${job}/users?userId=${org.userId}`), 200);
      return { method: 'DELETE', path: `/jobs/${job}/users?userId=${org.userId}` };
    },
  },
  {
    op: 'removeOrderTag',
    expect: 'once',
    make: async (org) => {
      const order = await makeOrder(org);
      const [tag] = expectStatus(await org.api.post(`/order/${order}/tags`, [{ title: code('Long lead') }]), 200).body as { id: string }[];
      return { method: 'DELETE', path: `/order/${order}/tags/${tag.id}` };
    },
  },
  {
    op: 'updateNotifications',
    expect: 'each',
    make: async (org) => {
      const notification = await created(
        org.api.post('/notifications', {
          recipientId: org.userId,
          type: 'integration_issue',
          payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' },
        }),
      );
      return { method: 'PATCH', path: '/notifications', body: (n) => ({ id_in: [notification.id], data: { isRead: n % 2 === 0 } }) };
    },
  },
  {
    op: 'updateBillOfMaterialsItems',
    expect: 'each',
    make: async (org) => {
      const item = await bomItemOf(org);
      return {
        method: 'PATCH',
        path: '/billOfMaterialsItems',
        body: (n) => ({ inputs: [{ billOfMaterialsItemId: item, input: { estimatedQuantity: 10 + n } }] }),
      };
    },
  },
  {
    op: 'updateRequisitionState',
    expect: 'each',
    make: async (org) => {
      const id = await billing.requisition(org, await billing.basics(org));
      return { method: 'PATCH', path: `/requisitions/${id}/updateRequisitionState?state=CLOSED` };
    },
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

  it('has a row for every PATCH and DELETE of the contract', () => {
    const writes = contractOperations().filter((o) => o.method === 'PATCH' || o.method === 'DELETE');
    expect(writes.length).to.be.greaterThan(30);
    const covered = new Set([...CASES.flatMap((c) => c.ops), ...RACERS.map((r) => r.op)]);
    expect(writes.map((w) => w.operationId).filter((id) => !covered.has(id))).to.deep.equal([]);
  });

  for (const r of RACERS) {
    it(`${r.op}: ${PARALLEL} concurrent requests (${r.expect}), never 5xx`, async function () {
      // Concurrent duplicates through one proxy: a race's loser may answer a status the proxy's
      // per-request validation counts as a violation; the point here is the service's own answers.
      if (r.op === 'updateRequisitionState') onlyDirect(this, 'concurrent duplicate state changes, judged on the service itself');
      for (let round = 0; round < ROUNDS; round++) {
        const w = await r.make(org);
        const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, n) => org.api.unchecked.request(w.method, w.path, w.body?.(n))));
        const statuses = answers.map((a) => a.status).sort();
        const why = answers.map((a) => a.text).join('\n');
        if (r.expect === 'each') expect(statuses, why).to.deep.equal(Array(PARALLEL).fill(200));
        else if (r.expect === 'once') expect(statuses, why).to.deep.equal([200, ...Array(PARALLEL - 1).fill(404)]);
        else expect(statuses, `${why} (idempotent by design)`).to.deep.equal(Array(PARALLEL).fill(200));
      }
    });
  }

  it('updateBillOfMaterialsItems racing deleteBillOfMaterialsItem: the batch 200 or 400 (its element rejected: item not found), the DELETE 200', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const item = await bomItemOf(org);
      const [batch, deleted] = await Promise.all([
        org.api.patch('/billOfMaterialsItems', { inputs: [{ billOfMaterialsItemId: item, input: { estimatedQuantity: 20 + round } }] }),
        org.api.delete(`/billOfMaterialsItem/${item}`),
      ]);
      expect(batch.status, batch.text).to.be.oneOf([200, 400]);
      expect(deleted.status, deleted.text).to.equal(200);
    }
  });

  for (const c of CASES) {
    it(`${c.name}: ${PARALLEL} concurrent PATCHes each 200`, async () => {
      const target = await c.make(org, 0);
      const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, n) => org.api.unchecked.patch(target.path, target.patch(n))));
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
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => org.api.unchecked.delete(target.path)));
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
        const [patched, deleted] = await Promise.all([org.api.unchecked.patch(target.path, target.patch(round)), org.api.unchecked.delete(target.path)]);
        expect(patched.status, patched.text).to.be.oneOf([200, 404]);
        expect(deleted.status, deleted.text).to.equal(200);
      }
    });
  }
});
