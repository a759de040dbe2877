import { expect } from 'chai';
import { resolveRef } from './support/contract-refs';
import { ApiResponse, expectStatus, PathOf, newOrg, problemOf, TestOrg } from './support/client';
import { makeJob, makeLocation, makeOrder } from './support/release-fixtures';
import * as billing from './support/billing-fixtures';
import { loadContract } from '../src/http/contract';
import { objectDigest } from '../src/db/object-digest';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request (as test/webhooks.test.ts).
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/**
 * ETag, If-Match, If-None-Match and Idempotency-Key, table-driven over the contract: every PATCH
 * and DELETE of generated/openapi.yaml needs a case here (a new one without it fails), and every
 * single-object write among them (it declares If-Match) is checked for a stale tag, the current
 * tag and a replay; every single-object GET for its ETag and If-None-Match.
 */
interface Case {
  method: 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** The object's current ETag as a client learns it (its single read, or for a BOM item its list). */
  etag?: () => Promise<string>;
  /** The single read of the object, when it has one (GET with ETag / If-None-Match). */
  read?: PathOf<'get'>;
}

let seq = 0;
const n = () => `cr${process.pid}-${++seq}`;
const ok = async (res: Promise<ApiResponse>, status = 201) => expectStatus(await res, status).body;
const etagOfRead = (org: TestOrg, path: PathOf<'get'>) => async () => expectStatus(await org.api.get(path), 200).headers.get('etag')!;

/** One object with its read: the write goes to `path` (or `writePath`). */
const single = (org: TestOrg, method: Case['method'], read: PathOf<'get'>, body?: unknown, writePath: string = read): Case => ({
  method,
  path: writePath,
  body,
  read,
  etag: etagOfRead(org, read),
});

type Setup = (org: TestOrg) => Promise<Case>;

const taxCode = async (org: TestOrg) => (await ok(org.api.post('/tax-codes', { code: `TX-${n()}`, description: 'California', taxPercent: 0.0725 }))).id;
const jobCode = async (org: TestOrg) => {
  const code = `J-${n()}`;
  await makeJob(org, code);
  return code;
};
const jobPhase = async (org: TestOrg) => {
  const job = await jobCode(org);
  const phase = (await ok(org.api.post(`/jobs/${job}/phases`, { code: `P-${n()}`, description: 'Podium' }))).code;
  return `/jobs/${job}/phases/${phase}` as const;
};
const bomItem = async (org: TestOrg) => {
  const job = await jobCode(org);
  const bom = (await ok(org.api.post(`/jobs/${job}/billOfMaterials`))).id;
  const [item] = await ok(org.api.post(`/billOfMaterials/${bom}/items`, { billOfMaterialsItems: [{ description: 'EMT conduit', estimatedQuantity: 10 }] }));
  // A BOM item has no single read: its ETag is the digest of the object as its list shows it (and as a write answers it).
  const etag = async () => {
    const items = expectStatus(await org.api.get(`/billOfMaterials/${bom}/items`), 200).body as { id: string }[];
    return `"${objectDigest(items.find((i) => i.id === item.id))}"`;
  };
  return { id: item.id as string, etag };
};

const CASES: Record<string, Setup> = {
  updateTaxCode: async (org) => single(org, 'PATCH', `/tax-codes/${await taxCode(org)}`, { taxPercent: 0.0825 }),
  deleteTaxCode: async (org) => single(org, 'DELETE', `/tax-codes/${await taxCode(org)}`),
  updateUnitOfMeasure: async (org) => {
    const code = (await ok(org.api.post('/units-of-measure', { code: `U-${n()}`, description: 'Linear foot' }))).code;
    return single(org, 'PATCH', `/units-of-measure/${code}`, { description: 'Linear feet' });
  },
  updateJob: async (org) => single(org, 'PATCH', `/jobs/${await jobCode(org)}`, { name: 'Riverside Medical' }),
  removeJobLocation: async (org) => {
    const job = await jobCode(org);
    const location = await makeLocation(org);
    await ok(org.api.post(`/jobs/${job}/locations?locationId=${location}`), 200);
    return single(org, 'DELETE', `/jobs/${job}`, undefined, `/jobs/${job}/locations?locationId=${location}`);
  },
  removeJobUser: async (org) => {
    const job = await jobCode(org);
    await ok(org.api.post(`/jobs/${job}/users?userId=${org.userId}`), 200);
    return single(org, 'DELETE', `/jobs/${job}`, undefined, `/jobs/${job}/users?userId=${org.userId}`);
  },
  updateGroup: async (org) => single(org, 'PATCH', `/groups/${(await ok(org.api.post('/groups', { name: `G ${n()}` }))).id}`, { name: `NorCal ${n()}` }),
  updateLocation: async (org) => single(org, 'PATCH', `/locations/${await makeLocation(org)}`, { directions: 'Gate 3' }),
  deleteLocation: async (org) => single(org, 'DELETE', `/locations/${await makeLocation(org)}`),
  updateVendor: async (org) =>
    single(org, 'PATCH', `/vendors/${(await ok(org.api.post('/vendors', { code: `V-${n()}`, name: 'Ferguson' }))).id}`, { name: 'Graybar' }),
  deleteVendor: async (org) => single(org, 'DELETE', `/vendors/${(await ok(org.api.post('/vendors', { code: `V-${n()}`, name: 'Ferguson' }))).id}`),
  updateGlobalPhase: async (org) =>
    single(org, 'PATCH', `/global-phases/${(await ok(org.api.post('/global-phases', { code: `GP-${n()}`, description: 'Concrete' }))).id}`, {
      description: 'Slabs',
    }),
  deleteGlobalPhase: async (org) =>
    single(org, 'DELETE', `/global-phases/${(await ok(org.api.post('/global-phases', { code: `GP-${n()}`, description: 'Concrete' }))).id}`),
  updateJobPhase: async (org) => single(org, 'PATCH', await jobPhase(org), { description: 'Podium and ramps' }),
  deleteJobPhase: async (org) => single(org, 'DELETE', await jobPhase(org)),
  updateGlobalCategory: async (org) =>
    single(org, 'PATCH', `/global-categories/${(await ok(org.api.post('/global-categories', { code: `C-${n()}`, description: 'Materials' }))).id}`, {
      description: 'Supplies',
    }),
  deleteGlobalCategory: async (org) =>
    single(org, 'DELETE', `/global-categories/${(await ok(org.api.post('/global-categories', { code: `C-${n()}`, description: 'Materials' }))).id}`),
  updateJobPhaseCategory: async (org) => {
    const phase = await jobPhase(org);
    const code = (await ok(org.api.post(`${phase}/categories`, { code: `C-${n()}`, description: 'Labor' }))).code;
    return single(org, 'PATCH', `${phase}/categories/${code}`, { description: 'Field labor' });
  },
  deleteJobPhaseCategory: async (org) => {
    const phase = await jobPhase(org);
    const code = (await ok(org.api.post(`${phase}/categories`, { code: `C-${n()}`, description: 'Labor' }))).code;
    return single(org, 'DELETE', `${phase}/categories/${code}`);
  },
  updateJobCategory: async (org) => {
    const job = await jobCode(org);
    const code = (await ok(org.api.post(`/jobs/${job}/categories`, { code: `C-${n()}`, description: 'Equipment' }))).code;
    return single(org, 'PATCH', `/jobs/${job}/categories/${code}`, { description: 'Rented equipment' });
  },
  deleteJobCategory: async (org) => {
    const job = await jobCode(org);
    const code = (await ok(org.api.post(`/jobs/${job}/categories`, { code: `C-${n()}`, description: 'Equipment' }))).code;
    return single(org, 'DELETE', `/jobs/${job}/categories/${code}`);
  },
  updateOrder: async (org) => single(org, 'PATCH', `/orders/${(await makeOrder(org, { state: 'DRAFT' })).id}`, { notes: 'Call before delivery' }),
  deleteOrder: async (org) => single(org, 'DELETE', `/orders/${(await makeOrder(org, { state: 'DRAFT' })).id}`),
  updateItem: async (org) => {
    const order = await makeOrder(org, { state: 'DRAFT' }, [
      { line_number: 1, description: 'EMT conduit', quantity: 10, unit_price: 2, units_of_measure: 'EA' },
    ]);
    return single(org, 'PATCH', `/items/${order.items[1]}`, { notes: 'Bundle by 10' });
  },
  deleteItem: async (org) => {
    const order = await makeOrder(org, { state: 'DRAFT' }, [
      { line_number: 1, description: 'EMT conduit', quantity: 10, unit_price: 2, units_of_measure: 'EA' },
    ]);
    return single(org, 'DELETE', `/items/${order.items[1]}`);
  },
  removeOrderTag: async (org) => {
    const order = (await makeOrder(org)).id;
    const [tag] = await ok(org.api.post(`/order/${order}/tags`, [{ title: `Long lead ${n()}` }]), 200);
    return single(org, 'DELETE', `/orders/${order}`, undefined, `/order/${order}/tags/${tag.id}`);
  },
  updateBillOfMaterialsItem: async (org) => {
    const item = await bomItem(org);
    return { method: 'PATCH', path: `/billOfMaterialsItem/${item.id}`, body: { input: { estimatedQuantity: 12 } }, etag: item.etag };
  },
  deleteBillOfMaterialsItem: async (org) => {
    const item = await bomItem(org);
    return { method: 'DELETE', path: `/billOfMaterialsItem/${item.id}`, etag: item.etag };
  },
  updateBillOfMaterialsItems: async (org) => {
    const item = await bomItem(org);
    return { method: 'PATCH', path: '/billOfMaterialsItems', body: { inputs: [{ billOfMaterialsItemId: item.id, input: { estimatedQuantity: 6 } }] } };
  },
  updateNotifications: async (org) => {
    const notification = await ok(
      org.api.post('/notifications', { recipientId: org.userId, type: 'integration_issue', payload: { lastSyncTime: '2026-11-20T22:10:00.000Z' } }),
    );
    return { method: 'PATCH', path: '/notifications', body: { id_in: [notification.id], data: { isRead: true } } };
  },
  updateRequisitionState: async (org) => {
    const id = await billing.requisition(org, await billing.basics(org));
    return single(org, 'PATCH', `/requisitions/${id}`, undefined, `/requisitions/${id}/updateRequisitionState?state=CLOSED`);
  },
  updateWebhookEndpoint: async (org) =>
    single(org, 'PATCH', `/webhook-endpoints/${(await ok(org.api.post('/webhook-endpoints', { url: 'https://127.0.0.1:9/hooks', enabled: false }))).id}`, {
      description: 'ERP sync',
    }),
  deleteWebhookEndpoint: async (org) =>
    single(org, 'DELETE', `/webhook-endpoints/${(await ok(org.api.post('/webhook-endpoints', { url: 'https://127.0.0.1:9/hooks', enabled: false }))).id}`),
};

const resolve = resolveRef;

/** The contract's operations of a method, with their parameters (path-level ones included) resolved. */
function operations(method: string): { operationId: string; path: string; parameters: any[]; responses: Record<string, any> }[] {
  const doc = loadContract() as any;
  const found = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const op = item[method];
    if (!op) continue;
    const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve(doc, p));
    found.push({ operationId: op.operationId, path, parameters, responses: op.responses });
  }
  return found;
}
const hasHeader = (parameters: any[], name: string) => parameters.some((p) => p.in === 'header' && p.name === name);

const send = (org: TestOrg, c: Case, headers: Record<string, string>) => org.api.unchecked.request(c.method, c.path, c.body, { headers });

describe('ETag, If-Match, If-None-Match and Idempotency-Key on every PATCH and DELETE', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  const writes = [...operations('patch'), ...operations('delete')];

  it('has a case for every PATCH and DELETE of the contract, each declaring Idempotency-Key (409, 422) and, for one object, If-Match (412)', () => {
    expect(writes.length).to.be.greaterThan(30);
    expect(writes.map((w) => w.operationId).filter((id) => !CASES[id])).to.deep.equal([]);
    const problems: string[] = [];
    for (const w of writes) {
      if (!hasHeader(w.parameters, 'Idempotency-Key')) problems.push(`${w.operationId}: no Idempotency-Key`);
      for (const s of ['409', '422']) if (!w.responses[s]) problems.push(`${w.operationId}: no ${s}`);
      const batch = !/\{/.test(w.path);
      if (!batch && !hasHeader(w.parameters, 'If-Match')) problems.push(`${w.operationId}: no If-Match`);
      if (!batch && !w.responses['412']) problems.push(`${w.operationId}: no 412`);
    }
    expect(problems).to.deep.equal([]);
  });

  for (const { operationId, parameters } of writes) {
    it(`${operationId}: stale If-Match is a 412 that writes nothing; the current one writes; the Idempotency-Key replays`, async function () {
      this.timeout(30_000);
      const c = await CASES[operationId](org);
      const key = `key-${operationId}-${n()}`;
      if (hasHeader(parameters, 'If-Match')) {
        const etag = await c.etag!();
        expect(etag).to.match(/^"[0-9a-f]{64}"$/);
        if (c.read) {
          // Its single read: 304 without a body for the current tag (weak comparison too).
          const unchanged = await org.api.get(c.read, { headers: { 'If-None-Match': `W/${etag}` } });
          expect([unchanged.status, unchanged.text, unchanged.headers.get('etag')]).to.deep.equal([304, '', etag]);
        }
        const stale = problemOf(await send(org, c, { 'If-Match': '"0000"' }), 412);
        expect(stale.errors[0]).to.include({ field: 'header.If-Match', rule: 'current-etag' });
        // A weak tag never matches If-Match (strong comparison, RFC 9110 13.1.1).
        problemOf(await send(org, c, { 'If-Match': `W/${etag}` }), 412);
        expect(await c.etag!()).to.equal(etag);
        const first = await send(org, c, { 'If-Match': etag, 'Idempotency-Key': key });
        expect(first.status, JSON.stringify(first.body)).to.equal(200);
        if (c.method === 'PATCH' && c.read) expect(first.headers.get('etag')).to.equal(await c.etag!());
        // The replay is the stored answer, though the tag it names is no longer current.
        const replay = await send(org, c, { 'If-Match': etag, 'Idempotency-Key': key });
        expect([replay.status, replay.headers.get('idempotent-replayed')]).to.deep.equal([200, 'true']);
        expect(replay.body).to.deep.equal(first.body);
      } else {
        const first = await send(org, c, { 'Idempotency-Key': key });
        expect(first.status, JSON.stringify(first.body)).to.equal(200);
        const replay = await send(org, c, { 'Idempotency-Key': key });
        expect([replay.status, replay.headers.get('idempotent-replayed')]).to.deep.equal([200, 'true']);
        expect(replay.body).to.deep.equal(first.body);
      }
      // The key is taken: another request with it is a 422.
      const other = problemOf(await org.api.post('/units-of-measure', { code: `U-${n()}`, description: 'Each' }, { headers: { 'Idempotency-Key': key } }), 422);
      expect(other.errors[0]).to.include({ field: 'header.Idempotency-Key', rule: 'same-request' });
    });
  }

  it('If-Match: * matches any current object, and an object that does not exist stays a 404', async () => {
    const vendor = await ok(org.api.post('/vendors', { code: `V-${n()}`, name: 'Ferguson' }));
    expectStatus(await org.api.patch(`/vendors/${vendor.id}`, { name: 'Graybar' }, { headers: { 'If-Match': '*' } }), 200);
    problemOf(await org.api.patch('/vendors/V-NOPE', { name: 'Graybar' }, { headers: { 'If-Match': '*' } }), 404);
    problemOf(await org.api.patch(`/vendors/${vendor.id}`, { name: 'x' }, { headers: { 'If-Match': '*, "abc"' } }), 400);
  });

  it('of 20 concurrent PATCHes with the same If-Match, one writes (200) and 19 get 412', async function () {
    this.timeout(60_000);
    const vendor = await ok(org.api.post('/vendors', { code: `V-${n()}`, name: 'Ferguson' }));
    const etag = expectStatus(await org.api.get(`/vendors/${vendor.id}`), 200).headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => org.api.patch(`/vendors/${vendor.id}`, { name: `Writer ${i}` }, { headers: { 'If-Match': etag } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([200, ...Array(19).fill(412)]);
    const winner = results.find((r) => r.status === 200)!;
    expect(expectStatus(await org.api.get(`/vendors/${vendor.id}`), 200).body.name).to.equal(winner.body.name);
  });

  it('a PATCH with a key still being processed is a 409 (one of concurrent duplicates writes)', async function () {
    this.timeout(60_000);
    const vendor = await ok(org.api.post('/vendors', { code: `V-${n()}`, name: 'Ferguson' }));
    const headers = { 'Idempotency-Key': `dup-${n()}` };
    const results = await Promise.all(Array.from({ length: 10 }, () => org.api.patch(`/vendors/${vendor.id}`, { name: 'Graybar' }, { headers })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).to.equal(true);
    expect(statuses.filter((s) => s === 200 && true).length).to.be.greaterThan(0);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.errors[0]).to.include({ field: 'header.Idempotency-Key', rule: 'in-progress' });
    const firsts = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') !== 'true');
    expect(firsts.length).to.equal(1);
  });
});

describe('ETag and If-None-Match on every single-object GET', () => {
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  it('declares ETag on 200, If-None-Match and 304 on every GET of one object that a write guards with If-Match', () => {
    const gets = new Map(operations('get').map((g) => [g.path, g]));
    const problems: string[] = [];
    for (const g of gets.values()) {
      const declared = !!resolve(loadContract(), g.responses['200'])?.headers?.ETag;
      if (!declared) continue;
      if (!hasHeader(g.parameters, 'If-None-Match')) problems.push(`${g.operationId}: no If-None-Match`);
      if (!g.responses['304']) problems.push(`${g.operationId}: no 304`);
    }
    // A GET at the path of a write that declares If-Match reads that one object (not a list at that path).
    for (const w of [...operations('patch'), ...operations('delete')].filter((x) => hasHeader(x.parameters, 'If-Match'))) {
      const g = gets.get(w.path);
      const ok200 = g && resolve(loadContract(), g.responses['200']);
      if (!ok200 || resolve(loadContract(), ok200.content['application/json'].schema).type === 'array') continue;
      if (!ok200.headers?.ETag) problems.push(`${g!.operationId}: no ETag`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('answers 304 without a body for a matching tag (weak comparison, lists, *), 200 otherwise; the tag follows every stored change', async () => {
    const vendor = await ok(org.api.post('/vendors', { code: `V-${n()}`, name: 'Ferguson' }));
    const path = `/vendors/${vendor.id}` as const;
    const read = expectStatus(await org.api.get(path), 200);
    const etag = read.headers.get('etag')!;
    expect(etag).to.equal(`"${objectDigest(read.body)}"`);
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await org.api.get(path, { headers: { 'If-None-Match': header } });
      expect([res.status, res.text, res.headers.get('etag')], header).to.deep.equal([304, '', etag]);
    }
    expectStatus(await org.api.get(path, { headers: { 'If-None-Match': '"nope"' } }), 200);
    const changed = expectStatus(await org.api.patch(path, { name: 'Graybar' }), 200).headers.get('etag');
    expect(changed).to.not.equal(etag);
    expectStatus(await org.api.get(path, { headers: { 'If-None-Match': etag } }), 200);
    expect((await org.api.get(path, { headers: { 'If-None-Match': changed! } })).status).to.equal(304);
  });

  it('gives an order an ETag that follows every stored change (no longer its version)', async () => {
    const order = (await makeOrder(org, { state: 'DRAFT' })).id;
    const first = expectStatus(await org.api.get(`/orders/${order}`), 200).headers.get('etag')!;
    expect(first).to.match(/^"[0-9a-f]{64}"$/);
    const second = expectStatus(await org.api.patch(`/orders/${order}`, { notes: 'Gate 3' }), 200).headers.get('etag');
    expect(second).to.not.equal(first);
    expect(expectStatus(await org.api.get(`/orders/${order}`), 200).headers.get('etag')).to.equal(second);
  });
});
