import { expect } from 'chai';
import { harness } from './support/harness';
import { ApiResponse, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { contractOperations, loadContract } from '../src/http/contract';
import { idempotencyLockName } from '../src/http/idempotency';

/**
 * The 409s of the order writes are documented one named example per case (OrderConflict.yaml and
 * its siblings): the service answers each case with exactly the documented body (its requestId
 * aside), so the examples stay what the service really says.
 */
const BASE = { purchaseOrderNumber: 'PO-409', distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };
/** The Idempotency-Key parameter's example, which the documented in-progress conflicts name. */
const KEY = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

const doc = loadContract();
const resolve = (obj: any): any =>
  obj?.$ref
    ? resolve(
        (obj.$ref as string)
          .replace(/^#\//, '')
          .split('/')
          .reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc),
      )
    : obj;

/** The named 409 examples an operation documents. */
function conflictExamples(operationId: string): Record<string, any> {
  const op = contractOperations(doc).find((o) => o.operationId === operationId);
  expect(op, operationId).to.not.equal(undefined);
  const examples = resolve(op!.operation.responses['409']).content['application/problem+json'].examples ?? {};
  return Object.fromEntries(Object.entries(examples).map(([name, e]) => [name, resolve(e).value]));
}

/** The order writes and the conflicts each documents (what src/resources/orders and src/http/idempotency.ts throw). */
const DOCUMENTED: Record<string, string[]> = {
  createOrder: ['illegalInitialState', 'idempotencyKeyInUse'],
  updateOrder: ['illegalStateMove'],
  updateOrderIntegrationState: ['staleVersion', 'idempotencyKeyInUse'],
  createOrderItems: ['orderClosed', 'idempotencyKeyInUse'],
  updateItem: ['orderClosed'],
  deleteItem: ['orderClosed'],
  setChangeOrderIntegrationState: ['staleVersion', 'idempotencyKeyInUse'],
};

describe('order write conflicts: the service answers the documented 409 examples', () => {
  let org: TestOrg;

  before(async () => {
    org = await newOrg();
  });

  const createOrder = async (extra: Record<string, unknown> = {}) => expectStatus(await org.api.post('/orders', { ...BASE, ...extra }), 201).body;
  /** A cancelled order (DRAFT -> CANCELLED) and its one item. */
  const itemOfCancelledOrder = async () => {
    const order = await createOrder({ items: [{ lineNumber: 1, quantity: 2, unitPrice: 5 }] });
    expectStatus(await org.api.patch(`/orders/${order.id}`, { state: 'CANCELLED' }), 200);
    const [item] = expectStatus(await org.api.get(`/orders/${order.id}/items`), 200).body;
    return { order, item };
  };
  /** Runs `send` while another request with the Idempotency-Key example holds the key (its advisory lock). */
  const whileKeyInUse = (send: () => Promise<ApiResponse>) =>
    harness().db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [idempotencyLockName(org.id, KEY)]);
      return send();
    });
  const withKey = { headers: { 'Idempotency-Key': KEY } };

  /** One request per documented case, made the way the example describes it. */
  const CASES: Record<string, Record<string, () => Promise<ApiResponse>>> = {
    createOrder: {
      illegalInitialState: () => org.api.post('/orders', { ...BASE, mode: 'REQUEST_FOR_QUOTE', state: 'ACTIVE' }),
      idempotencyKeyInUse: () => whileKeyInUse(() => org.api.post('/orders', BASE, withKey)),
    },
    updateOrder: {
      illegalStateMove: async () => org.api.patch(`/orders/${(await createOrder({ state: 'ACTIVE' })).id}`, { state: 'FINALIZING' }),
    },
    updateOrderIntegrationState: {
      staleVersion: async () => {
        // A sent order: each change is a change order, its next version (a draft's edits are none).
        const { id } = await createOrder({ state: 'FINALIZING' });
        expectStatus(await org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 0 }), 200);
        for (let n = 1; n <= 4; n++) expectStatus(await org.api.patch(`/orders/${id}`, { notes: `change ${n}` }), 200);
        return org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKED', versionNumber: 3 });
      },
      idempotencyKeyInUse: async () => {
        const { id } = await createOrder();
        return whileKeyInUse(() => org.api.post(`/orders/${id}/integrationState`, { integrationState: 'LINKING' }, withKey));
      },
    },
    createOrderItems: {
      orderClosed: async () => org.api.post(`/orders/${(await itemOfCancelledOrder()).order.id}/items`, [{ lineNumber: 2, quantity: 1 }]),
      idempotencyKeyInUse: async () => {
        const { id } = await createOrder();
        return whileKeyInUse(() => org.api.post(`/orders/${id}/items`, [{ lineNumber: 1, quantity: 1 }], withKey));
      },
    },
    updateItem: {
      orderClosed: async () => org.api.patch(`/items/${(await itemOfCancelledOrder()).item.id}`, { quantity: 3 }),
    },
    deleteItem: {
      orderClosed: async () => org.api.delete(`/items/${(await itemOfCancelledOrder()).item.id}`),
    },
    setChangeOrderIntegrationState: {
      staleVersion: async () => {
        const { id } = await createOrder({ state: 'FINALIZING' });
        expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'version 1' }), 200);
        expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'version 2' }), 200);
        const changeOrders = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${id}`), 200).body as { id: string; versionNumber: number }[];
        const second = changeOrders.find((c) => c.versionNumber === 2)!;
        return org.api.post(`/changeOrders/${second.id}/integrationState`, { integrationState: 'LINKED', versionNumber: 3 });
      },
      idempotencyKeyInUse: async () => {
        const { id } = await createOrder({ state: 'FINALIZING' });
        expectStatus(await org.api.patch(`/orders/${id}`, { notes: 'version 1' }), 200);
        const [changeOrder] = expectStatus(await org.api.get(`/changeOrders?filter[orderId]=${id}`), 200).body as { id: string }[];
        return whileKeyInUse(() => org.api.post(`/changeOrders/${changeOrder.id}/integrationState`, { integrationState: 'LINKED' }, withKey));
      },
    },
  };

  it('documents each conflict of the order writes as a named example, and nothing else', () => {
    for (const [operationId, names] of Object.entries(DOCUMENTED)) {
      expect(Object.keys(conflictExamples(operationId)), operationId).to.have.members(names);
      expect(Object.keys(CASES[operationId]), operationId).to.have.members(names);
    }
  });

  for (const [operationId, names] of Object.entries(DOCUMENTED)) {
    for (const name of names) {
      it(`${operationId}: ${name} is answered with the documented body`, async () => {
        const res = await CASES[operationId][name]();
        const problem = problemOf(res, 409);
        const documented = conflictExamples(operationId)[name];
        expect(problem.requestId).to.equal(res.headers.get('x-request-id'));
        expect({ ...problem, requestId: documented.requestId }).to.deep.equal(documented);
      });
    }
  }
});
