import { expect } from 'chai';
import { ApiResponse, Client, expectStatus, newOrg, TestOrg } from './support/client';
import { harness } from './support/harness';
import { headCursor, readAll } from './support/feed';
import { makeOrder } from './support/release-fixtures';
import * as billing from './support/billing-fixtures';
import { loadContract } from '../src/http/contract';
import { recordChangeOrder, snapshotOrder } from '../src/resources/change-orders/store';
import { updateOrder } from '../src/resources/orders/store';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request (as test/webhooks.test.ts).
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/**
 * "A write that changes nothing is nothing" (src/feed/unchanged.ts), for every operation of the
 * contract that updates objects: every PATCH, and every POST whose operationId says it updates
 * (upsert, add, set, update, mark). Each row prepares its object and gives the write; the write
 * is sent twice: the second one changes nothing, so it must answer the same status and body (the
 * object as stored, its updatedAt unchanged) and add nothing to the feed.
 */
function updateOperations(): string[] {
  const ids: string[] = [];
  for (const item of Object.values(loadContract().paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [method, op] of Object.entries(item)) {
      const id = op.operationId ?? '';
      if (method === 'patch' || (method === 'post' && /^(upsert|add|set|update|mark)[A-Z]/.test(id))) ids.push(id);
    }
  }
  return ids;
}

interface World {
  org: TestOrg;
  api: Client;
}

type Write = () => Promise<ApiResponse>;
const ok = async (res: Promise<ApiResponse>, status = 200) => expectStatus(await res, status).body;
const db = () => harness().db;

async function job(w: World, code: string): Promise<string> {
  return (await ok(w.api.post('/jobs', { code, name: `Job ${code}` }), 201)).id;
}

async function order(w: World): Promise<string> {
  return (await makeOrder(w.org, { state: 'ACTIVE' }, [{ line_number: 1, description: 'EMT conduit', quantity: 10, unit_price: 2, units_of_measure: 'EA' }]))
    .id;
}

let n = 0;
const unique = (prefix: string) => `NOOP-${prefix}-${process.pid}-${++n}`;

const ROWS: Record<string, (w: World) => Promise<Write>> = {
  updateTaxCode: async (w) => {
    const code = unique('TX');
    await ok(w.api.post('/tax-codes', { code, description: 'California', taxPercent: 0.0725 }), 201);
    return () => w.api.patch(`/tax-codes/${code}`, { description: 'California', taxPercent: 0.0825 });
  },
  updateUnitOfMeasure: async (w) => {
    const code = unique('U');
    await ok(w.api.post('/units-of-measure', { code, description: 'Linear foot' }), 201);
    return () => w.api.patch(`/units-of-measure/${code}`, { description: 'Linear feet' });
  },
  upsertJobs: async (w) => {
    const [a, b] = [unique('J'), unique('J')];
    return () =>
      w.api.post('/jobs/batch', {
        inputs: [
          { code: a, name: 'Riverside', state: 'CLOSED' },
          { code: b, name: 'Elk Grove', defaultLocation: { name: 'Elk Grove DC', city: 'Elk Grove' } },
        ],
      });
  },
  updateJob: async (w) => {
    const code = unique('J');
    await job(w, code);
    const group = (await ok(w.api.post('/groups', { name: 'NorCal', code: unique('G') }), 201)).id;
    return () => w.api.patch(`/jobs/${code}`, { name: 'Riverside Medical', groupIds: [group], defaultLocation: { name: 'Gate 3' } });
  },
  addJobLocation: async (w) => {
    const code = unique('J');
    await job(w, code);
    const location = (await ok(w.api.post('/locations', { name: 'Yard', type: 'Jobsite' }), 201)).id;
    return () => w.api.post(`/jobs/${code}/locations?locationId=${location}&shouldSetAsDefault=true`);
  },
  addJobUser: async (w) => {
    const code = unique('J');
    await job(w, code);
    return () => w.api.post(`/jobs/${code}/users?userId=${w.org.userId}`);
  },
  setNextPurchaseOrderNumber: async (w) => {
    const code = unique('J');
    await job(w, code);
    await db()('organizations').where({ id: w.org.id }).update({ po_counter_enabled: true });
    return () => w.api.post(`/jobs/${code}/nextPurchaseOrderNumber`, { nextCounter: 1050 });
  },
  updateGroup: async (w) => {
    const id = (await ok(w.api.post('/groups', { name: 'NorCal', code: unique('G') }), 201)).id;
    return () => w.api.patch(`/groups/${id}`, { name: 'NorCal and Nevada' });
  },
  updateLocation: async (w) => {
    const id = (await ok(w.api.post('/locations', { name: 'Riverside jobsite', type: 'Jobsite' }), 201)).id;
    return () => w.api.patch(`/locations/${id}`, { directions: 'Gate 3', city: null });
  },
  upsertVendors: async (w) => {
    const [a, b] = [unique('V'), unique('V')];
    return () =>
      w.api.post('/vendors/batch', {
        inputs: [
          { code: a, name: 'Graybar' },
          { code: b, name: 'Ferguson' },
        ],
      });
  },
  updateVendor: async (w) => {
    const code = unique('V');
    await ok(w.api.post('/vendors', { code, name: 'Ferguson' }), 201);
    return () => w.api.patch(`/vendors/${code}`, { name: 'Ferguson Inc.' });
  },
  setVendorLocation: async (w) => {
    const code = unique('V');
    await ok(w.api.post('/vendors', { code, name: 'Ferguson' }), 201);
    const location = (await ok(w.api.post('/locations', { name: 'Yard', type: 'Warehouse' }), 201)).id;
    return () => w.api.post(`/vendors/${code}/location`, { locationId: location });
  },
  upsertPhases: async (w) => {
    const [a, b] = [unique('P'), unique('P')];
    return () =>
      w.api.post('/global-phases/batch', {
        inputs: [
          { code: a, description: 'Cast-in-place' },
          { code: b, description: 'Steel' },
        ],
      });
  },
  updateGlobalPhase: async (w) => {
    const code = unique('P');
    await ok(w.api.post('/global-phases', { code, description: 'Concrete' }), 201);
    return () => w.api.patch(`/global-phases/${code}`, { description: 'Concrete slabs' });
  },
  updateJobPhase: async (w) => {
    const code = unique('J');
    await job(w, code);
    await ok(w.api.post(`/jobs/${code}/phases`, { code: 'JP-1', description: 'Podium' }), 201);
    return () => w.api.patch(`/jobs/${code}/phases/JP-1`, { description: 'Podium and ramps' });
  },
  updateGlobalCategory: async (w) => {
    const code = unique('C');
    await ok(w.api.post('/global-categories', { code, description: 'Materials' }), 201);
    return () => w.api.patch(`/global-categories/${code}`, { description: 'Materials and supplies' });
  },
  updateJobPhaseCategory: async (w) => {
    const code = unique('J');
    await job(w, code);
    await ok(w.api.post(`/jobs/${code}/phases`, { code: 'JP-1', description: 'Podium' }), 201);
    await ok(w.api.post(`/jobs/${code}/phases/JP-1/categories`, { code: 'LAB', description: 'Labor' }), 201);
    return () => w.api.patch(`/jobs/${code}/phases/JP-1/categories/LAB`, { description: 'Field labor' });
  },
  updateJobCategory: async (w) => {
    const code = unique('J');
    await job(w, code);
    await ok(w.api.post(`/jobs/${code}/categories`, { code: 'EQP', description: 'Equipment' }), 201);
    return () => w.api.patch(`/jobs/${code}/categories/EQP`, { description: 'Rented equipment' });
  },
  updateOrder: async (w) => {
    const id = await order(w);
    return () => w.api.patch(`/orders/${id}`, { notes: 'edited', title: 'Conduit' });
  },
  // A LINKED report always stamps integrationLastSync (the spec's behaviour): ERROR is the one that can repeat.
  updateOrderIntegrationState: async (w) => {
    const id = await order(w);
    return () => w.api.post(`/orders/${id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'Vendor V-1 is not in Vista.' });
  },
  updateItem: async (w) => {
    const id = await order(w);
    const item = (await db()('items').where({ order_id: id }).first('id')).id;
    return () => w.api.patch(`/items/${item}`, { quantity: 12, description: 'EMT conduit 3/4"' });
  },
  addOrderTags: async (w) => {
    const id = await order(w);
    const title = unique('Long lead');
    return () => w.api.post(`/order/${id}/tags`, [{ title, color: '#ff7875' }]);
  },
  updateNotifications: async (w) => {
    const body = { recipientId: w.org.userId, type: 'integration_issue' as const, payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' } };
    const id = (await ok(w.api.post('/notifications', body), 201)).id;
    return () => w.api.patch('/notifications', { id_in: [id], data: { isRead: true, readAt: '2026-11-21T08:00:00.000Z' } });
  },
  setChangeOrderIntegrationState: async (w) => {
    const id = await order(w);
    const before = (await snapshotOrder(db(), w.org.id, id))!;
    await updateOrder(db(), w.org.id, w.org.userId, id, { notes: 'Call before delivery' });
    const after = (await snapshotOrder(db(), w.org.id, id))!;
    const co = await recordChangeOrder(db(), w.org.id, id, { label: 'CO-1', createdById: w.org.userId, before, after });
    return () => w.api.post(`/changeOrders/${co.id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'Rejected by Vista.' });
  },
  updateBillOfMaterialsItem: async (w) => {
    const code = unique('J');
    await job(w, code);
    const bom = (await ok(w.api.post(`/jobs/${code}/billOfMaterials`), 201)).id;
    const [item] = await ok(
      w.api.post(`/billOfMaterials/${bom}/items`, { billOfMaterialsItems: [{ description: 'EMT conduit', estimatedQuantity: 10 }] }),
      201,
    );
    return () => w.api.patch(`/billOfMaterialsItem/${item.id}`, { input: { estimatedQuantity: 12, mpn: null } });
  },
  updateBillOfMaterialsItems: async (w) => {
    const code = unique('J');
    await job(w, code);
    const bom = (await ok(w.api.post(`/jobs/${code}/billOfMaterials`), 201)).id;
    const items = await ok(
      w.api.post(`/billOfMaterials/${bom}/items`, {
        billOfMaterialsItems: [
          { description: 'EMT conduit', estimatedQuantity: 10 },
          { description: 'Straps', estimatedQuantity: 5 },
        ],
      }),
      201,
    );
    return () =>
      w.api.patch('/billOfMaterialsItems', {
        inputs: items.map((i: { id: string }) => ({ billOfMaterialsItemId: i.id, input: { estimatedQuantity: 6 } })),
      });
  },
  updateRequisitionState: async (w) => {
    const id = await billing.requisition(w.org, await billing.basics(w.org));
    return () => w.api.patch(`/requisitions/${id}/updateRequisitionState?state=CLOSED`);
  },
  updateDeliveryReceiptIntegrationState: async (w) => {
    const id = await billing.receipt(w.org, await billing.basics(w.org));
    return () => w.api.post(`/deliveries/${id}/updateIntegrationState`, { integrationState: 'ERROR', integrationMessage: 'No such PO in Vista.' });
  },
  markInvoicesPaid: async (w) => {
    const id = await billing.invoice(w.org, await billing.basics(w.org));
    return () => w.api.post('/invoices/paid', { ids: [id], userId: w.org.userId });
  },
  updateInvoiceIntegrationState: async (w) => {
    const id = await billing.invoice(w.org, await billing.basics(w.org));
    return () => w.api.post(`/invoices/${id}/integrationState`, { integrationState: 'ERROR', integrationMessage: 'AP period closed.' });
  },
  updateWebhookEndpoint: async (w) => {
    const id = (await ok(w.api.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', enabled: false }), 201)).id;
    return () => w.api.patch(`/webhook-endpoints/${id}`, { description: 'ERP', types: ['vendor.updated'], fields: ['name'] });
  },
};

describe('a write that changes nothing is nothing', () => {
  let w: World;
  before(async () => {
    const org = await newOrg();
    w = { org, api: org.api };
  });

  it('every update operation of the contract has a row here', () => {
    const ops = updateOperations();
    expect(ops.length).to.be.greaterThan(25);
    expect(ops.filter((id) => !(id in ROWS))).to.deep.equal([]);
    expect(Object.keys(ROWS).filter((id) => !ops.includes(id))).to.deep.equal([]);
  });

  for (const [operationId, prepare] of Object.entries(ROWS)) {
    it(`${operationId}: sent again, the same answer, the object as stored, no feed entry`, async function () {
      this.timeout(60_000);
      const write = await prepare(w);
      const first = await write();
      expect(first.status, `${operationId} ${JSON.stringify(first.body)}`).to.be.within(200, 201);
      const cursor = await headCursor(w.api);
      const second = await write();
      expect(second.status, operationId).to.equal(first.status);
      expect(second.body, operationId).to.deep.equal(first.body);
      expect(
        (await readAll(w.api, cursor)).entries.map((e) => `${e.type} ${JSON.stringify(e.changedFields ?? null)}`),
        operationId,
      ).to.deep.equal([]);
    });
  }
});
