import { expect } from 'chai';
import { ApiResponse, Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { harness } from './support/harness';
import { itDirect, PRISM } from './support/proxy';
import { Change, headCursor, readAll } from './support/feed';
import { nextOf } from './support/next-link';
import { makeOrder } from './support/release-fixtures';
import * as billing from './support/billing-fixtures';
import { loadContract } from '../src/http/contract';
import { FEED_BY_HANDLER, FEED_EXCLUDED, FEED_OPERATIONS } from '../src/resources';
import { pruneChangeFeed } from '../src/feed/retention';
import { ConfigError, loadConfig } from '../src/config';
import { checkFeedSettings } from '../src/feed/settings';
import { encodeCursor } from '../src/feed/cursor';
import { ChangeCollector } from '../src/feed/append';
import { recordChangeOrder, snapshotOrder } from '../src/resources/change-orders/store';
import { updateOrder } from '../src/resources/orders/store';

const WRITE_METHODS = ['post', 'put', 'patch', 'delete'];

/** Every write operation of the contract (generated/openapi.json), by operationId. */
function contractWrites(): string[] {
  const ids: string[] = [];
  for (const item of Object.values(loadContract().paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [method, op] of Object.entries(item)) if (WRITE_METHODS.includes(method) && op.operationId) ids.push(op.operationId);
  }
  return ids;
}

interface World {
  org: TestOrg;
  api: Client;
  ids: Record<string, string>;
}

/**
 * One scenario per write operation, run in this order against one organization: the request (it
 * must succeed) and the entry types it must add to the feed, in order. `id` (when given) is the id
 * every entry's data must carry the reply's own fields for.
 */
type Scenario = (w: World) => Promise<{ body: any; types: string[] }>;
const ok = async (res: Promise<ApiResponse>, status = 200) => expectStatus(await res, status).body;

const SCENARIOS: [string, Scenario][] = [
  [
    'createTaxCode',
    async (w) => ({
      body: await ok(w.api.post('/tax-codes', { code: 'TX-CA', description: 'California', taxPercent: 0.0725 }), 201),
      types: ['tax_code.created'],
    }),
  ],
  ['updateTaxCode', async (w) => ({ body: await ok(w.api.patch('/tax-codes/TX-CA', { taxPercent: 0.0825 })), types: ['tax_code.updated'] })],
  [
    'createUnitOfMeasure',
    async (w) => ({ body: await ok(w.api.post('/units-of-measure', { code: 'LF', description: 'Linear foot' }), 201), types: ['unit_of_measure.created'] }),
  ],
  [
    'updateUnitOfMeasure',
    async (w) => ({ body: await ok(w.api.patch('/units-of-measure/LF', { description: 'Linear feet' })), types: ['unit_of_measure.updated'] }),
  ],
  [
    'createGroup',
    async (w) => {
      const body = await ok(w.api.post('/groups', { name: 'Northern California', code: 'NORCAL' }), 201);
      w.ids.group = body.id;
      return { body, types: ['group.created'] };
    },
  ],
  ['updateGroup', async (w) => ({ body: await ok(w.api.patch(`/groups/${w.ids.group}`, { name: 'NorCal and Nevada' })), types: ['group.updated'] })],
  [
    'createLocation',
    async (w) => {
      const body = await ok(w.api.post('/locations', { name: 'Riverside jobsite', type: 'Jobsite' }), 201);
      w.ids.location = body.id;
      return { body, types: ['location.created'] };
    },
  ],
  ['updateLocation', async (w) => ({ body: await ok(w.api.patch(`/locations/${w.ids.location}`, { directions: 'Gate 3' })), types: ['location.updated'] })],
  [
    'createJob',
    async (w) => ({
      body: await ok(w.api.post('/jobs', { code: 'J-1', name: 'Riverside', defaultLocation: { name: 'Riverside MOB jobsite' } }), 201),
      types: ['location.created', 'job.created'],
    }),
  ],
  [
    'upsertJobs',
    async (w) => ({
      body: await ok(
        w.api.post('/jobs/batch', {
          inputs: [
            { code: 'J-1', name: 'Riverside MOB' },
            { code: 'J-2', name: 'Elk Grove', defaultLocation: { name: 'Elk Grove DC' } },
          ],
        }),
      ),
      // J-1's default location lists it by name: it shows the rename too.
      types: ['location.created', 'job.updated', 'job.created', 'location.updated'],
    }),
  ],
  [
    'updateJob',
    async (w) => ({
      body: await ok(w.api.patch('/jobs/J-1', { name: 'Riverside Medical', defaultLocation: { name: 'Riverside MOB gate 3' } })),
      types: ['location.updated', 'job.updated'],
    }),
  ],
  [
    'addJobLocation',
    async (w) => ({ body: await ok(w.api.post(`/jobs/J-1/locations?locationId=${w.ids.location}`)), types: ['job.updated', 'location.updated'] }),
  ],
  [
    'removeJobLocation',
    async (w) => ({ body: await ok(w.api.delete(`/jobs/J-1/locations?locationId=${w.ids.location}`)), types: ['job.updated', 'location.updated'] }),
  ],
  ['addJobUser', async (w) => ({ body: await ok(w.api.post(`/jobs/J-1/users?userId=${w.org.userId}`)), types: ['job.updated'] })],
  ['removeJobUser', async (w) => ({ body: await ok(w.api.delete(`/jobs/J-1/users?userId=${w.org.userId}`)), types: ['job.updated'] })],
  [
    'setNextPurchaseOrderNumber',
    async (w) => {
      await harness().db('organizations').where({ id: w.org.id }).update({ po_counter_enabled: true });
      return { body: await ok(w.api.post('/jobs/J-1/nextPurchaseOrderNumber', { nextCounter: 1050 })), types: ['job.purchase_order_counter_changed'] };
    },
  ],
  ['createVendor', async (w) => ({ body: await ok(w.api.post('/vendors', { code: 'V-1', name: 'Ferguson' }), 201), types: ['vendor.created'] })],
  [
    'upsertVendors',
    async (w) => ({
      body: await ok(
        w.api.post('/vendors/batch', {
          inputs: [
            { code: 'V-2', name: 'Graybar' },
            { code: 'V-1', name: 'Ferguson Enterprises' },
          ],
        }),
      ),
      types: ['vendor.created', 'vendor.updated'],
    }),
  ],
  ['updateVendor', async (w) => ({ body: await ok(w.api.patch('/vendors/V-1', { name: 'Ferguson Inc.' })), types: ['vendor.updated'] })],
  [
    'setVendorLocation',
    async (w) => ({ body: await ok(w.api.post('/vendors/V-1/location', { locationId: w.ids.location })), types: ['vendor.updated', 'location.updated'] }),
  ],
  ['deleteVendor', async (w) => ({ body: await ok(w.api.delete('/vendors/V-2')), types: ['vendor.deleted'] })],
  // The location V-1 is at lists it by name.
  [
    'updateVendor',
    async (w) => ({ body: await ok(w.api.patch('/vendors/V-1', { name: 'Ferguson Enterprises Inc.' })), types: ['vendor.updated', 'location.updated'] }),
  ],
  [
    'createGlobalPhase',
    async (w) => ({ body: await ok(w.api.post('/global-phases', { code: '03-300', description: 'Concrete' }), 201), types: ['phase.created'] }),
  ],
  [
    'upsertPhases',
    async (w) => ({
      body: await ok(
        w.api.post('/global-phases/batch', {
          inputs: [
            { code: '03-300', description: 'Cast-in-place' },
            { code: '05-100', description: 'Steel' },
          ],
        }),
      ),
      types: ['phase.updated', 'phase.created'],
    }),
  ],
  ['updateGlobalPhase', async (w) => ({ body: await ok(w.api.patch('/global-phases/03-300', { description: 'Concrete slabs' })), types: ['phase.updated'] })],
  ['deleteGlobalPhase', async (w) => ({ body: await ok(w.api.delete('/global-phases/05-100')), types: ['phase.deleted'] })],
  ['createJobPhase', async (w) => ({ body: await ok(w.api.post('/jobs/J-1/phases', { code: 'JP-1', description: 'Podium' }), 201), types: ['phase.created'] })],
  ['updateJobPhase', async (w) => ({ body: await ok(w.api.patch('/jobs/J-1/phases/JP-1', { description: 'Podium and ramps' })), types: ['phase.updated'] })],
  [
    'createGlobalCategory',
    async (w) => ({ body: await ok(w.api.post('/global-categories', { code: 'MAT', description: 'Materials' }), 201), types: ['cost_category.created'] }),
  ],
  [
    'updateGlobalCategory',
    async (w) => ({ body: await ok(w.api.patch('/global-categories/MAT', { description: 'Materials and supplies' })), types: ['cost_category.updated'] }),
  ],
  ['deleteGlobalCategory', async (w) => ({ body: await ok(w.api.delete('/global-categories/MAT')), types: ['cost_category.deleted'] })],
  [
    'createJobPhaseCategory',
    async (w) => ({
      body: await ok(w.api.post('/jobs/J-1/phases/JP-1/categories', { code: 'LAB', description: 'Labor' }), 201),
      types: ['cost_category.created'],
    }),
  ],
  [
    'updateJobPhaseCategory',
    async (w) => ({ body: await ok(w.api.patch('/jobs/J-1/phases/JP-1/categories/LAB', { description: 'Field labor' })), types: ['cost_category.updated'] }),
  ],
  ['deleteJobPhaseCategory', async (w) => ({ body: await ok(w.api.delete('/jobs/J-1/phases/JP-1/categories/LAB')), types: ['cost_category.deleted'] })],
  [
    'createJobCategory',
    async (w) => ({ body: await ok(w.api.post('/jobs/J-1/categories', { code: 'EQP', description: 'Equipment' }), 201), types: ['cost_category.created'] }),
  ],
  [
    'updateJobCategory',
    async (w) => ({ body: await ok(w.api.patch('/jobs/J-1/categories/EQP', { description: 'Rented equipment' })), types: ['cost_category.updated'] }),
  ],
  ['deleteJobCategory', async (w) => ({ body: await ok(w.api.delete('/jobs/J-1/categories/EQP')), types: ['cost_category.deleted'] })],
  ['deleteJobPhase', async (w) => ({ body: await ok(w.api.delete('/jobs/J-1/phases/JP-1')), types: ['phase.deleted'] })],
  [
    'createUser',
    async (w) => ({
      body: await ok(w.api.post('/users', { email: `maria.${w.org.id}@builders.example`, firstName: 'Maria', lastName: 'Chen', role: 'Field' }), 201),
      types: ['user.created'],
    }),
  ],
  [
    'updateOrderIntegrationState',
    async (w) => {
      w.ids.order = (await makeOrder(w.org, {}, [{ line_number: 1, description: 'EMT conduit', quantity: 10, unit_price: 2, units_of_measure: 'EA' }])).id;
      return {
        body: await ok(w.api.post(`/orders/${w.ids.order}/integrationState`, { integrationState: 'LINKED' })),
        types: ['order.integration_state_changed'],
      };
    },
  ],
  [
    'addOrderTags',
    async (w) => {
      const body = await ok(w.api.post(`/order/${w.ids.order}/tags`, [{ title: 'Long lead' }]));
      w.ids.tag = body[0].id;
      return { body, types: ['tag.created', 'order_tag.created'] };
    },
  ],
  ['removeOrderTag', async (w) => ({ body: await ok(w.api.delete(`/order/${w.ids.order}/tags/${w.ids.tag}`)), types: ['order_tag.deleted'] })],
  [
    'createNotification',
    async (w) => {
      const body = await ok(
        w.api.post('/notifications', { recipientId: w.org.userId, type: 'integration_issue', payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' } }),
        201,
      );
      w.ids.notification = body.id;
      return { body, types: ['notification.created'] };
    },
  ],
  [
    'updateNotifications',
    async (w) => ({ body: await ok(w.api.patch('/notifications', { id_in: [w.ids.notification], data: { isRead: true } })), types: ['notification.updated'] }),
  ],
  [
    'setChangeOrderIntegrationState',
    async (w) => {
      const db = harness().db;
      const before = (await snapshotOrder(db, w.org.id, w.ids.order))!;
      await updateOrder(db, w.org.id, w.org.userId, w.ids.order, { notes: 'Call before delivery' });
      const after = (await snapshotOrder(db, w.org.id, w.ids.order))!;
      const co = await recordChangeOrder(db, w.org.id, w.ids.order, { label: 'CO-1', note: 'Owner request', createdById: w.org.userId, before, after });
      return {
        body: await ok(w.api.post(`/changeOrders/${co.id}/integrationState`, { integrationState: 'LINKED' })),
        types: ['change_order.integration_state_changed'],
      };
    },
  ],
  [
    'createJobBillOfMaterials',
    async (w) => {
      const body = await ok(w.api.post('/jobs/J-1/billOfMaterials'), 201);
      w.ids.bom = body.id;
      // Asked again: the existing one, 200, and nothing changed.
      await ok(w.api.post('/jobs/J-1/billOfMaterials'), 200);
      return { body, types: ['bill_of_materials.created'] };
    },
  ],
  [
    'createBillOfMaterialsItems',
    async (w) => {
      const body = await ok(
        w.api.post(`/billOfMaterials/${w.ids.bom}/items`, {
          billOfMaterialsItems: [
            { description: 'EMT conduit', estimatedQuantity: 10 },
            { description: 'Straps', estimatedQuantity: 5 },
          ],
        }),
        201,
      );
      [w.ids.bomItem, w.ids.bomItem2] = body.map((i: { id: string }) => i.id);
      return { body, types: ['bom_item.created', 'bom_item.created'] };
    },
  ],
  [
    'updateBillOfMaterialsItem',
    async (w) => ({ body: await ok(w.api.patch(`/billOfMaterialsItem/${w.ids.bomItem}`, { input: { estimatedQuantity: 12 } })), types: ['bom_item.updated'] }),
  ],
  [
    'updateBillOfMaterialsItems',
    async (w) => ({
      body: await ok(w.api.patch('/billOfMaterialsItems', { inputs: [{ billOfMaterialsItemId: w.ids.bomItem2, input: { estimatedQuantity: 6 } }] })),
      types: ['bom_item.updated'],
    }),
  ],
  ['deleteBillOfMaterialsItem', async (w) => ({ body: await ok(w.api.delete(`/billOfMaterialsItem/${w.ids.bomItem}`)), types: ['bom_item.deleted'] })],
  [
    'updateRequisitionState',
    async (w) => {
      const b = await billing.basics(w.org);
      w.ids.basicsJob = b.jobId;
      const id = await billing.requisition(w.org, b);
      return { body: await ok(w.api.patch(`/requisitions/${id}/updateRequisitionState?state=CLOSED`)), types: ['requisition.state_changed'] };
    },
  ],
  [
    'updateDeliveryReceiptIntegrationState',
    async (w) => {
      const b = await billing.basics(w.org);
      const id = await billing.receipt(w.org, b);
      return {
        body: await ok(w.api.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'LINKED' })),
        types: ['delivery_receipt.integration_state_changed'],
      };
    },
  ],
  [
    'markInvoicesPaid',
    async (w) => {
      const b = await billing.basics(w.org);
      const id = await billing.invoice(w.org, b);
      return { body: await ok(w.api.post('/invoices/paid', { ids: [id], userId: w.org.userId })), types: ['invoice.paid'] };
    },
  ],
  ['deleteTaxCode', async (w) => ({ body: await ok(w.api.delete('/tax-codes/TX-CA')), types: ['tax_code.deleted'] })],
  // Its vendor (V-1, see setVendorLocation) loses it.
  ['deleteLocation', async (w) => ({ body: await ok(w.api.delete(`/locations/${w.ids.location}`)), types: ['location.deleted', 'vendor.updated'] })],
];

const replyObjects = (body: any): any[] =>
  Array.isArray(body) ? body.filter((o) => o && typeof o === 'object') : body && typeof body === 'object' ? [body] : [];

describe('change feed', () => {
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    org = await newOrg();
    other = await newOrg();
  });

  describe('every write operation of the contract emits its entries', () => {
    it('each write operation of the contract is in the feed table (the declarations of its resource) or excluded with a reason', () => {
      const writes = contractWrites();
      expect(writes.length).to.be.greaterThan(40);
      const missing = writes.filter((id) => !(id in FEED_OPERATIONS) && !(id in FEED_EXCLUDED) && !(id in FEED_BY_HANDLER));
      expect(missing, 'write operations that emit no feed entry').to.deep.equal([]);
      const stale = [...Object.keys(FEED_OPERATIONS), ...Object.keys(FEED_EXCLUDED), ...Object.keys(FEED_BY_HANDLER)].filter((id) => !writes.includes(id));
      expect(stale, 'feed table rows of operations the contract does not have').to.deep.equal([]);
    });

    it('each write operation of the contract has a scenario here (so its entries are checked below)', () => {
      const covered = new Set(SCENARIOS.map(([id]) => id));
      expect(contractWrites().filter((id) => !(id in FEED_EXCLUDED) && !(id in FEED_BY_HANDLER) && !covered.has(id))).to.deep.equal([]);
    });

    it('each write adds exactly its entries, in commit order, data as the reply (the object as read at that change)', async function () {
      this.timeout(60_000);
      const w: World = { org, api: org.api, ids: {} };
      let cursor = await headCursor(org.api);
      for (const [operationId, run] of SCENARIOS) {
        const { body, types } = await run(w);
        const { entries: all, cursor: next } = await readAll(org.api, cursor);
        cursor = next;
        // The scenarios' fixtures written in SQL (makeOrder) enter the feed too, as changes made in the
        // database, whenever a worker appends them (through the proxy, the service's own worker does):
        // they are test/feed-capture.test.ts's, not the operation's.
        const entries = all.filter((e) => e.origin?.credentialType !== 'database');
        expect(
          entries.map((e) => e.type),
          operationId,
        ).to.deep.equal(types);
        for (const e of entries) {
          expect(e.resource, operationId).to.equal(e.type.split('.')[0]);
          expect(e.data.id, operationId).to.equal(e.id);
          if (e.type.endsWith('.deleted')) expect(e.data.deletedAt, `${operationId} tombstone`).to.be.a('string');
          const replied = replyObjects(body).find((o) => o.id === e.id);
          if (replied && e.resource !== 'order_tag' && e.resource !== 'tag') expect(e.data, operationId).to.deep.equal(replied);
        }
      }
    });
  });

  it('a vendor moved to another location: the feed reports the vendor, the location it joins and the one it leaves', async () => {
    const a = expectStatus(await org.api.post('/locations', { name: 'Old yard', type: 'Warehouse' }), 201).body;
    const b = expectStatus(await org.api.post('/locations', { name: 'New yard', type: 'Warehouse' }), 201).body;
    expectStatus(await org.api.post('/vendors', { code: 'MOVER-1', name: 'Moving supply' }), 201);
    expectStatus(await org.api.post('/vendors/MOVER-1/location', { locationId: a.id }), 200);
    const start = await headCursor(org.api);
    const vendor = expectStatus(await org.api.post('/vendors/MOVER-1/location', { locationId: b.id }), 200).body;
    const { entries } = await readAll(org.api, start);
    expect(entries.map((e) => [e.type, e.id])).to.deep.equal([
      ['vendor.updated', vendor.id],
      ['location.updated', b.id],
      ['location.updated', a.id],
    ]);
    // Each entry is the object as its own read endpoint now returns it.
    expect(entries[1].data).to.deep.equal(expectStatus(await org.api.get(`/locations/${b.id}`), 200).body);
    expect(entries[2].data).to.deep.equal(expectStatus(await org.api.get(`/locations/${a.id}`), 200).body);
    expect(entries[1].data.vendors.map((v: { id: string }) => v.id)).to.include(vendor.id);
    expect(entries[2].data.vendors.map((v: { id: string }) => v.id)).to.not.include(vendor.id);
    // Set to where it already is: nothing changed, nothing is recorded (src/feed/unchanged.ts).
    const again = await headCursor(org.api);
    expectStatus(await org.api.post('/vendors/MOVER-1/location', { locationId: b.id }), 200);
    expect((await readAll(org.api, again)).entries.map((e) => e.type)).to.deep.equal([]);
  });

  it("a tag taken off an order: the tombstone's deletedAt is the transaction's time, from PostgreSQL's clock like every deletedAt", async () => {
    await harness().db.transaction(async (trx) => {
      // Later than the transaction's start: a clock read now would differ from it.
      await trx.raw('SELECT pg_sleep(0.05)');
      const ctx = {
        db: trx,
        organizationId: org.id,
        status: 200,
        params: { orderId: 'o-1', tagId: 't-1' },
        query: {},
        input: undefined,
        changes: new ChangeCollector(),
        read: async () => [],
      };
      const [tombstone] = await FEED_OPERATIONS.removeOrderTag!(true, ctx);
      const { now } = (await trx.raw('SELECT api_ts(now()::timestamptz(3)) AS now')).rows[0];
      expect(tombstone.data).to.deep.equal({ id: 't-1', orderId: 'o-1', deletedAt: now });
    });
  });

  it('a jobs batch reports the locations that list a job only when it renames that job', async () => {
    const site = expectStatus(await org.api.post('/locations', { name: 'Batch yard', type: 'Jobsite' }), 201).body;
    const job = expectStatus(await org.api.post('/jobs/batch', { inputs: [{ code: 'J-REN', name: 'Before', defaultLocationId: site.id }] }), 200).body[0];
    // The same name again (with other fields changed): the location's list of jobs is as it was.
    let start = await headCursor(org.api);
    expectStatus(await org.api.post('/jobs/batch', { inputs: [{ code: 'J-REN', name: 'Before', state: 'CLOSED' }] }), 200);
    expect((await readAll(org.api, start)).entries.map((e) => [e.type, e.id])).to.deep.equal([['job.updated', job.id]]);
    // A new name: the location lists the job by name, so it changed too (after the job's entry).
    start = await headCursor(org.api);
    expectStatus(
      await org.api.post('/jobs/batch', {
        inputs: [
          { code: 'J-NEW', name: 'Another' },
          { code: 'J-REN', name: 'After' },
        ],
      }),
      200,
    );
    const { entries } = await readAll(org.api, start);
    expect(entries.map((e) => [e.type, e.id === job.id || e.id === site.id ? e.id : 'new'])).to.deep.equal([
      ['job.created', 'new'],
      ['job.updated', job.id],
      ['location.updated', site.id],
    ]);
    expect(entries[2].data.jobs).to.deep.include({ id: job.id, code: 'J-REN', name: 'After' });
  });

  it('a vendors batch reports the location of a vendor only when it renames that vendor', async () => {
    const yard = expectStatus(await org.api.post('/locations', { name: 'Vendor yard', type: 'Warehouse' }), 201).body;
    const vendor = expectStatus(await org.api.post('/vendors/batch', { inputs: [{ code: 'V-REN', name: 'Before' }] }), 200).body[0];
    expectStatus(await org.api.post('/vendors/V-REN/location', { locationId: yard.id }), 200);
    let start = await headCursor(org.api);
    // The same name again: the vendor is unchanged, so nothing is recorded; the location is not either.
    expectStatus(await org.api.post('/vendors/batch', { inputs: [{ code: 'V-REN', name: 'Before' }] }), 200);
    expect((await readAll(org.api, start)).entries.map((e) => [e.type, e.id])).to.deep.equal([]);
    start = await headCursor(org.api);
    expectStatus(await org.api.post('/vendors/batch', { inputs: [{ code: 'V-REN', name: 'After' }] }), 200);
    const { entries } = await readAll(org.api, start);
    expect(entries.map((e) => [e.type, e.id])).to.deep.equal([
      ['vendor.updated', vendor.id],
      ['location.updated', yard.id],
    ]);
    expect(entries[1].data.vendors).to.deep.include({ id: vendor.id, code: 'V-REN', name: 'After' });
  });

  describe('reading', () => {
    let first: Change[];
    before(async () => {
      const start = await headCursor(org.api);
      expectStatus(await org.api.post('/vendors/batch', { inputs: Array.from({ length: 30 }, (_, i) => ({ code: `R-${i}`, name: `Reader ${i}` })) }), 200);
      expectStatus(await org.api.post('/units-of-measure', { code: 'RD', description: 'Reader unit' }), 201);
      expectStatus(await org.api.delete('/vendors/R-3'), 200);
      first = (await readAll(org.api, start)).entries;
      expect(first).to.have.length(32);
    });

    it('pages by limit with no gap and no duplicate; hasMore until the end', async () => {
      const start = first[0].cursor;
      const seen: Change[] = [];
      let cursor = start;
      let pages = 0;
      for (;;) {
        const page = expectStatus(await org.api.get(`/changes?limit=7&after=${cursor}`), 200).body;
        pages++;
        seen.push(...page.data);
        cursor = page.nextCursor;
        if (!page.hasMore) break;
        expect(page.data).to.have.length(7);
      }
      expect(pages).to.be.greaterThan(4);
      expect(seen.map((e) => e.cursor)).to.deep.equal(first.slice(1).map((e) => e.cursor));
    });

    it('a page with hasMore links the next one (Link rel="next": after=nextCursor, every other parameter kept); following the links reads every entry once', async () => {
      const start = first[0].cursor;
      let url: string | undefined = `/changes?types=vendor.created&after=${start}&types=vendor.deleted&limit=7`;
      const seen: Change[] = [];
      const links: string[] = [];
      while (url) {
        const page = await org.api.unchecked.get(url);
        expect(page.status).to.equal(200);
        seen.push(...page.body.data);
        const next = nextOf(page.headers.get('link'));
        // A link exactly while the feed says there is more: the head's page has none.
        expect(next !== undefined, url).to.equal(page.body.hasMore);
        if (next) {
          // The same parameters with the next cursor (as a set: through Prism, which forwards the
          // query with its repeated parameters together, the service sees them in another order).
          const query = (u: string) => [...new URL(u, 'http://127.0.0.1').searchParams].map((p) => p.join('=')).sort();
          expect(next.split('?')[0]).to.equal('/changes');
          expect(query(next)).to.deep.equal(query(`/changes?types=vendor.created&after=${page.body.nextCursor}&types=vendor.deleted&limit=7`));
          links.push(next);
        }
        url = next;
      }
      // 29 vendor.created after the first entry and one vendor.deleted: pages of 7, 7, 7, 7 and 2.
      expect(links).to.have.length(4);
      expect(seen.map((e) => e.cursor)).to.deep.equal(
        first
          .slice(1)
          .filter((e) => e.resource === 'vendor')
          .map((e) => e.cursor),
      );
    });

    it('a full page at the head, and after=now, have no Link (the feed knows there is no more)', async () => {
      const start = first[0].cursor;
      const full = await org.api.get(`/changes?after=${start}&resource=vendor&limit=30`);
      const body = expectStatus(full, 200).body;
      expect(body.data).to.have.length(30);
      expect(body.hasMore).to.equal(false);
      expect(full.headers.get('link')).to.equal(null);
      const now = await org.api.get('/changes?after=now');
      expect(expectStatus(now, 200).body.hasMore).to.equal(false);
      expect(now.headers.get('link')).to.equal(null);
    });

    it('after omitted: from the oldest kept entry; default limit 100', async () => {
      const o = await newOrg();
      expectStatus(await o.api.post('/vendors/batch', { inputs: Array.from({ length: 150 }, (_, i) => ({ code: `D-${i}`, name: `Default ${i}` })) }), 200);
      const page = expectStatus(await o.api.get('/changes'), 200).body;
      expect(page.data.length).to.equal(100);
      expect(page.hasMore).to.equal(true);
      // First its admin user (created with the organization), then the batch.
      expect(page.data[0].type).to.equal('user.created');
      expect(page.data[1].data.code).to.equal('D-0');
      expect(page.nextCursor).to.equal(page.data[99].cursor);
    });

    it('filters by types (comma list or repeated) and resource; nextCursor moves past what was skipped', async () => {
      const start = first[0].cursor;
      const byTypes = expectStatus(await org.api.get(`/changes?after=${start}&types=vendor.deleted,unit_of_measure.created`), 200).body;
      expect(byTypes.data.map((e: Change) => e.type)).to.deep.equal(['unit_of_measure.created', 'vendor.deleted']);
      expect(byTypes.nextCursor).to.equal(first[first.length - 1].cursor);
      const repeated = expectStatus(await org.api.get(`/changes?after=${start}&types=vendor.deleted&types=unit_of_measure.created`), 200).body;
      expect(repeated).to.deep.equal(byTypes);
      const byResource = expectStatus(await org.api.get(`/changes?after=${start}&resource=unit_of_measure`), 200).body;
      expect(byResource.data.map((e: Change) => e.type)).to.deep.equal(['unit_of_measure.created']);
      expect(byResource.nextCursor).to.equal(first[first.length - 1].cursor);
      // A page of filtered entries stops at its last match.
      const limited = expectStatus(await org.api.get(`/changes?after=${start}&resource=vendor&limit=2`), 200).body;
      expect(limited.hasMore).to.equal(true);
      expect(limited.nextCursor).to.equal(limited.data[1].cursor);
      const nothing = expectStatus(await org.api.get(`/changes?after=${start}&types=group.created`), 200).body;
      expect(nothing).to.deep.equal({ data: [], nextCursor: first[first.length - 1].cursor, hasMore: false });
    });

    it('after=now gives the newest cursor and nothing else', async () => {
      expect(await headCursor(org.api)).to.equal(first[first.length - 1].cursor);
    });

    itDirect('rejects an unknown type, a limit above 1000 and a malformed cursor with 400', PRISM.invalidRequest('limit=1001'), async () => {
      expect(problemOf(await org.api.get('/changes?types=spaceship.created'), 400).errors[0].field).to.equal('query.types[0]');
      // An event the feed does not know (a misspelling would otherwise match nothing, silently).
      for (const misspelt of ['vendor.update', 'vendor.exploded', 'order.state_change']) {
        expect(problemOf(await org.api.get(`/changes?types=vendor.created,${misspelt}`), 400).errors[0].message).to.include(`${misspelt} is not a change type`);
      }
      problemOf(await org.api.get('/changes?limit=1001'), 400);
      for (const bad of ['nope', 'MTA0MS5hYWFhYWFhYWFhYQ', first[0].cursor.slice(0, -2)]) {
        expect(problemOf(await org.api.get(`/changes?after=${bad}`), 400).errors[0].field).to.equal('query.after');
      }
      // A cursor with its last character changed is another cursor, even where the change is only in
      // the bits base64url decoders ignore.
      const cursor: string = first[0].cursor;
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const statuses = await Promise.all(
        [...alphabet].filter((ch) => ch !== cursor.at(-1)).map(async (ch) => (await org.api.get(`/changes?after=${cursor.slice(0, -1) + ch}`)).status),
      );
      expect(new Set(statuses)).to.deep.equal(new Set([400]));
    });

    it('tenancy: an organization sees only its entries; another organization cursor is a 400 like a malformed one', async () => {
      const theirs = await readAll(other.api, undefined);
      expect(theirs.entries.map((e) => `${e.type} ${e.id}`)).to.deep.equal([`user.created ${other.userId}`]);
      const p = problemOf(await other.api.get(`/changes?after=${first[0].cursor}`), 400);
      expect(p.errors[0].field).to.equal('query.after');
      expectStatus(await other.api.post('/vendors', { code: 'V-OTHER', name: 'Other' }), 201);
      const mine = (await readAll(org.api, first[first.length - 1].cursor)).entries;
      expect(mine).to.deep.equal([]);
      expect((await readAll(other.api, undefined)).entries.map((e) => e.type)).to.deep.equal(['user.created', 'vendor.created']);
    });
  });

  describe('retention', () => {
    it("an organization's entries go with it (through its feed head), and no other organization's", async () => {
      const [gone, kept] = [await newOrg(), await newOrg()];
      for (const o of [gone, kept]) expectStatus(await o.api.post('/vendors', { code: 'V-1', name: 'One' }), 201);
      const db = harness().db;
      const count = async (orgId: string) => Number((await db('change_feed').where('organization_id', orgId).count({ n: '*' }))[0].n);
      // Each: its admin user's entry and the vendor's.
      expect(await count(gone.id)).to.equal(2);
      await db('organizations').where('id', gone.id).del();
      expect(await count(gone.id)).to.equal(0);
      expect(await count(kept.id)).to.equal(2);
    });

    it('prunes entries older than the retention, and a cursor before what is kept is 410 Gone (exactly)', async () => {
      const o = await newOrg();
      const start = await headCursor(o.api);
      for (const code of ['A', 'B', 'C', 'D']) expectStatus(await o.api.post('/vendors', { code, name: code }), 201);
      const all = (await readAll(o.api, start)).entries;
      // The first three (its admin user's, A, B) are 40 days old.
      const db = harness().db;
      await db.raw(
        `UPDATE change_feed SET occurred_at = now() - interval '40 days' WHERE organization_id = ? AND position IN (SELECT position FROM change_feed WHERE organization_id = ? ORDER BY position LIMIT 3)`,
        [o.id, o.id],
      );
      expect(await pruneChangeFeed(db, 30)).to.be.at.least(2);
      // The oldest kept is C: a reader who had B continues; one who had only A (or nothing) is gone.
      expect((await readAll(o.api, all[1].cursor)).entries.map((e) => e.data.code)).to.deep.equal(['C', 'D']);
      const gone = problemOf(await o.api.get(`/changes?after=${all[0].cursor}`), 410);
      expect(gone.detail).to.match(/resynchronize/);
      problemOf(await o.api.get(`/changes?after=${start}`), 410);
      expect((await readAll(o.api, undefined)).entries.map((e) => e.data.code)).to.deep.equal(['C', 'D']);
      // A cursor past the newest entry (a restored database) is gone too, never a silent jump.
      problemOf(await o.api.get(`/changes?after=${encodeCursor(o.id, 999)}`), 410);
    });
  });

  describe('settings', () => {
    it('the service refuses synchronous_commit = off and an isolation above read committed, naming the setting', async () => {
      const db = harness().db;
      await checkFeedSettings(db);
      for (const [setting, value] of [
        ['synchronous_commit', 'off'],
        ['default_transaction_isolation', 'serializable'],
      ]) {
        await db.transaction(async (tx) => {
          await tx.raw(`SET LOCAL ${setting} = '${value}'`);
          const error = await checkFeedSettings(tx).then(
            () => undefined,
            (e: Error) => e,
          );
          expect(error?.message).to.contain(setting);
        });
      }
    });

    it('CHANGE_FEED_RETENTION_DAYS: 30 by default, a whole number of days', () => {
      expect(loadConfig({}).changeFeedRetentionDays).to.equal(30);
      expect(loadConfig({ CHANGE_FEED_RETENTION_DAYS: '45' }).changeFeedRetentionDays).to.equal(45);
      expect(() => loadConfig({ CHANGE_FEED_RETENTION_DAYS: '0.5' })).to.throw(ConfigError, /CHANGE_FEED_RETENTION_DAYS/);
    });
  });
});
