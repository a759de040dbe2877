import { expect } from 'chai';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { harness } from './support/harness';
import { localDelivery } from './support/local-delivery';
import { anonymous, Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { insertJob, insertVendor } from './support/purchasing-fixtures';
import { itDirect, onlyDirect, PRISM } from './support/proxy';
import { pinCredential } from '../src/admin/api-versions';
import { headCursor } from './support/feed';
import { eventually, Receiver } from './support/webhook-receiver';
import { deliverEndpoint } from '../src/background/deliver';
import { decodeCursor } from '../src/feed/cursor';
import { startPrism } from './support/mock';
import type { Child } from './support/child';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

const OLD = '2026-06-01';
const NEW = '2026-12-15';
const at = (version: string) => ({ headers: { 'Api-Version': version } });
const BASE = { purchaseOrderNumber: 'PO-V-1', distributorContactEmail: 'dana@ferguson.example', distributorContactCompany: 'Ferguson' };

/** The order's stored field-visibility flag (write-only in the API). */
const visibility = async (orgId: string, id: string) =>
  (await harness().db('orders').where({ organization_id: orgId, id }).first('is_visible_to_field')).is_visible_to_field;

describe('API versions', () => {
  let org: TestOrg;
  let refs: { job: string; vendor: string };
  let orderId: string;

  before(async function () {
    // Prism proxies for the newest contract only: an older version's requests and answers are checked
    // here by the service itself (test mode validates every answer against its version's contract).
    onlyDirect(this, 'runs requests at the older API version, which Prism (the newest contract) cannot check');
    org = await newOrg();
    refs = { job: await insertJob(org.id), vendor: await insertVendor(org.id) };
    orderId = expectStatus(await org.api.post('/orders', { ...BASE, jobId: refs.job, vendorId: refs.vendor, type: 'MAJOR', isVisibleToField: true }), 201).body
      .id;
  });

  it('lists the versions, newest first, publicly, and serves each one contract', async () => {
    const res = expectStatus(await anonymous().get('/versions'), 200);
    expect(res.headers.get('api-version')).to.equal(NEW);
    expect(res.body).to.deep.equal([
      { version: NEW, status: 'current', successor: null, deprecatedAt: null, sunsetAt: null, contract: `/openapi/${NEW}.json` },
      { version: OLD, status: 'deprecated', successor: NEW, deprecatedAt: NEW, sunsetAt: '2027-12-15', contract: `/openapi/${OLD}.json` },
    ]);
    const old = await fetch(harness().baseUrl + `/openapi/${OLD}.json`).then((r) => r.json());
    expect(old.components.schemas.Order.required).to.include.members(['version', 'isProjectPO']);
    expect(old.components.schemas.OrderInput.properties).to.have.property('isVisibileToField');
    const newest = await fetch(harness().baseUrl + `/openapi/${NEW}.json`).then((r) => r.json());
    expect(newest.components.schemas.Order.properties).to.not.have.any.keys('version', 'isProjectPO');
    const yaml = await fetch(harness().baseUrl + `/openapi/${OLD}.yaml`);
    expect(yaml.status).to.equal(200);
    expect(await yaml.text()).to.contain('isVisibileToField');
    expect((await fetch(harness().baseUrl + '/openapi/2020-01-01.json')).status).to.equal(404);
    // Like every operation, it refuses a parameter it does not take.
    expect(problemOf(await anonymous().unchecked.get('/versions?verbose=1'), 400).errors[0].field).to.equal('query.verbose');
  });

  it('reads, lists and filters the same order in each version its own shape', async () => {
    const newer = expectStatus(await org.api.get(`/orders/${orderId}`, at(NEW)), 200);
    expect(newer.headers.get('api-version')).to.equal(NEW);
    expect(newer.body).to.not.have.any.keys('version', 'isProjectPO');
    const older = expectStatus(await org.api.get(`/orders/${orderId}`, at(OLD)), 200);
    expect(older.headers.get('api-version')).to.equal(OLD);
    expect(older.body).to.include({ version: 0, versionNumber: 0, isProjectPO: true, type: 'MAJOR' });
    // The older shape, in the older contract's order of fields: `version` right after `versionNumber`.
    const keys = Object.keys(older.body);
    expect(keys[keys.indexOf('versionNumber') + 1]).to.equal('version');
    const { version: _v, isProjectPO: _p, ...rest } = older.body as any;
    expect(rest).to.deep.equal(newer.body);
    const listed = expectStatus(await org.api.get(`/orders?filter[type]=MAJOR&orderBy=createdAt`, at(OLD)), 200).body as any[];
    expect(listed.find((o) => o.id === orderId)).to.include({ version: 0, isProjectPO: true });
    const listedNew = expectStatus(await org.api.get(`/orders?filter[type]=MAJOR`, at(NEW)), 200).body as any[];
    expect(listedNew.find((o) => o.id === orderId)).to.not.have.any.keys('version', 'isProjectPO');
  });

  itDirect(
    'writes in the older shape, read back in the newer; each version refuses the other name',
    PRISM.invalidRequest('an older-version field'),
    async () => {
      const created = await org.api.unchecked.post('/orders', { ...BASE, purchaseOrderNumber: 'PO-V-2', jobId: refs.job, isVisibileToField: false }, at(OLD));
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ version: 0, isProjectPO: false });
      expect(await visibility(org.id, created.body.id)).to.equal(false);
      // With a change the read shows: a write whose read changes nothing stores nothing.
      const patched = await org.api.unchecked.patch(`/orders/${created.body.id}`, { isVisibileToField: true, notes: 'seen in the field' }, at(OLD));
      expect(patched.status).to.equal(200);
      expect(await visibility(org.id, created.body.id)).to.equal(true);
      const read = expectStatus(await org.api.get(`/orders/${created.body.id}`, at(NEW)), 200).body;
      expect(read).to.not.have.any.keys('version', 'isProjectPO');
      // The newer name at the older version, and the older at the newer: unknown fields, named as each version names them.
      const refusedOld = problemOf(await org.api.unchecked.patch(`/orders/${created.body.id}`, { isVisibleToField: true }, at(OLD)), 400);
      expect(refusedOld.errors.map((e: any) => e.field)).to.include('body.isVisibleToField');
      const refusedNew = problemOf(await org.api.unchecked.patch(`/orders/${created.body.id}`, { isVisibileToField: true }, at(NEW)), 400);
      expect(refusedNew.errors.map((e: any) => e.field)).to.include('body.isVisibileToField');
    },
  );

  it('renders feed entries written at the newer version at the version of their reader, changedFields and previous included', async () => {
    const after = await headCursor(org.api);
    expectStatus(await org.api.patch(`/orders/${orderId}`, { type: 'STANDARD', notes: 'now standard' }, at(NEW)), 200);
    const page = (version: string) => org.api.get(`/changes?after=${after}&resource=order`, at(version));
    const [newer] = expectStatus(await page(NEW), 200).body.data.filter((e: any) => e.id === orderId);
    expect(newer.data).to.not.have.any.keys('version', 'isProjectPO');
    expect(newer.changedFields).to.have.members(['type', 'notes']);
    const olderPage = expectStatus(await page(OLD), 200);
    expect(olderPage.headers.get('api-version')).to.equal(OLD);
    const [older] = olderPage.body.data.filter((e: any) => e.id === orderId);
    expect(older.data).to.include({ version: 0, isProjectPO: false, type: 'STANDARD' });
    expect(older.changedFields).to.have.members(['type', 'notes', 'isProjectPO']);
    expect(older.previous).to.include({ type: 'MAJOR', isProjectPO: true });
    expect(older.cursor).to.equal(newer.cursor);
  });

  itDirect(
    "answers a feed page of several resources at the older version: an entry that reads the same there has the newest's text, an order's is moved",
    "compares entries' texts in the body: a proxy may write the JSON again",
    async () => {
      const after = await headCursor(org.api);
      expectStatus(await org.api.patch(`/vendors/${refs.vendor}`, { name: 'Ferguson Waterworks #1042' }, at(NEW)), 200);
      expectStatus(await org.api.patch(`/orders/${orderId}`, { notes: 'entry by entry' }, at(NEW)), 200);
      const page = async (version: string) => expectStatus(await org.api.get(`/changes?after=${after}`, at(version)), 200);
      const [newer, older] = [await page(NEW), await page(OLD)];
      const entryText = (text: string, id: string) => {
        // The entries' texts, each from its own '{"cursor"' to the next (or to the page's end).
        const at = text.indexOf(`{"cursor":"${(newer.body.data as any[]).find((e) => e.id === id).cursor}"`);
        const next = text.indexOf('{"cursor":"', at + 1);
        return text.slice(at, next < 0 ? text.lastIndexOf('],"nextCursor"') : next - 1);
      };
      // A vendor reads the same at both versions: its entry's text is the newest's.
      expect(entryText(older.text, refs.vendor)).to.equal(entryText(newer.text, refs.vendor));
      // An order's is moved (and written anew).
      expect(entryText(older.text, orderId)).to.not.equal(entryText(newer.text, orderId));
      expect((older.body.data as any[]).find((e) => e.id === orderId).data).to.include.keys('version', 'isProjectPO');
    },
  );

  it('answers reconciliation digests of the objects as each version reads them', async () => {
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    for (const version of [OLD, NEW]) {
      const orders = expectStatus(await org.api.get('/orders?limit=1000', at(version)), 200).body as any[];
      const expected = orders.map((o) => ({ id: o.id, digest: sha256(canonicalize(o)!) })).sort((a, b) => (a.id < b.id ? -1 : 1));
      const reconciled = expectStatus(await org.api.get('/reconciliation/order', at(version)), 200).body;
      expect(reconciled.objects, version).to.deep.equal(expected);
      expect(reconciled.digest).to.equal(sha256(expected.map((o) => `${o.id}:${o.digest}\n`).join('')));
      const [first] = expected;
      const bucket = expectStatus(await org.api.get(`/reconciliation/order?prefix=${first.id.slice(0, 1)}`, at(version)), 200).body;
      expect(bucket.objects!.find((o: any) => o.id === first.id)).to.deep.equal(first);
    }
  });

  it('refuses an unknown version, naming the supported ones; never falls forward', async () => {
    for (const version of ['2025-01-01', 'latest', `${OLD}, ${NEW}`]) {
      const problem = problemOf(await org.api.get(`/orders/${orderId}`, at(version)), 400);
      expect(problem.type).to.equal('/problems/unsupported-api-version');
      expect(problem.errors[0]).to.include({ field: 'header.Api-Version', rule: 'supported-version' });
      expect(problem.detail).to.contain(NEW).and.contain(OLD);
    }
    expect(problemOf(await anonymous().get('/versions', at('2025-01-01')), 400).type).to.equal('/problems/unsupported-api-version');
  });

  it('announces a deprecated version on every answer at it, and nothing at the current one', async () => {
    const res = await org.api.get(`/orders/${orderId}`, at(OLD));
    expect(res.headers.get('deprecation')).to.equal(`@${Date.parse(NEW + 'T00:00:00Z') / 1000}`);
    expect(res.headers.get('sunset')).to.equal('Wed, 15 Dec 2027 00:00:00 GMT');
    const link = res.headers.get('link') ?? '';
    expect(link).to.contain('rel="deprecation"').and.contain(`</openapi/${NEW}.json>; rel="successor-version"`);
    const current = await org.api.get(`/orders/${orderId}`, at(NEW));
    expect(current.headers.get('deprecation')).to.equal(null);
    expect(current.headers.get('sunset')).to.equal(null);
  });

  it("lists the organization's deprecated usage of the last 30 days: version, operation, count and last request id", async () => {
    const fresh = await newOrg();
    expect(expectStatus(await fresh.api.get('/deprecated-usage'), 200).body).to.deep.equal([]);
    problemOf(await anonymous().get('/deprecated-usage'), 401);
    await fresh.api.get('/orders', at(OLD));
    // Concurrent requests share their statements (DeprecatedUsageRecorder): each is counted once.
    await Promise.all(Array.from({ length: 8 }, () => fresh.api.get('/orders', at(OLD))));
    const last = await fresh.api.get('/orders', at(OLD));
    await fresh.api.get('/orders', at(NEW));
    const key = await harness().db('api_keys').where({ organization_id: fresh.id }).whereNull('revoked_at').first('id');
    const listed = expectStatus(await fresh.api.get('/deprecated-usage'), 200).body;
    // The version, and the fields its orders carry that it marks deprecated (api-versions-usage.test.ts).
    expect(listed.map((u: any) => u.deprecated)).to.have.members(['version', 'response.Order.isProjectPO', 'response.Order.version']);
    expect(listed.find((u: any) => u.deprecated === 'version')).to.include({
      credentialId: key.id,
      version: OLD,
      operationId: 'listOrders',
      deprecated: 'version',
      count: 10,
      lastRequestId: last.headers.get('x-request-id'),
    });
    // Another organization sees none of it.
    expect(expectStatus(await org.api.get('/deprecated-usage', at(NEW)), 200).body.filter((u: any) => u.credentialId === key.id)).to.deep.equal([]);
  });

  describe('pins', () => {
    const pinOf = async (table: 'api_keys' | 'oauth_clients', where: Record<string, string>) =>
      (await harness().db(table).where(where).first('api_version')).api_version;

    it('pins an API key to the newest version at its first request; a moved pin is its default version', async () => {
      const fresh = await newOrg();
      const key = await harness().db('api_keys').where({ organization_id: fresh.id }).whereNull('revoked_at').first('id');
      expect(await pinOf('api_keys', { id: key.id })).to.equal(null);
      expect(expectStatus(await fresh.api.get('/orders'), 200).headers.get('api-version')).to.equal(NEW);
      expect(await pinOf('api_keys', { id: key.id })).to.equal(NEW);
      await pinCredential(harness().db, { apiKey: key.id }, OLD);
      const res = expectStatus(await fresh.api.get('/orders'), 200);
      expect(res.headers.get('api-version')).to.equal(OLD);
      expect(res.headers.get('deprecation')).to.not.equal(null);
      // The header still wins over the pin.
      expect(expectStatus(await fresh.api.get('/orders', at(NEW)), 200).headers.get('api-version')).to.equal(NEW);
    });

    it('pins an OAuth client to the newest version at its first request', async () => {
      const fresh = await newOrg();
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: fresh.clientId, client_secret: fresh.clientSecret }).toString();
      const token = (await anonymous().unchecked.post('/oauth2/token', undefined, { raw: body, contentType: 'application/x-www-form-urlencoded' })).body
        .access_token;
      expect(await pinOf('oauth_clients', { client_id: fresh.clientId })).to.equal(null);
      const client = new Client(token);
      expect(expectStatus(await client.get('/orders'), 200).headers.get('api-version')).to.equal(NEW);
      expect(await pinOf('oauth_clients', { client_id: fresh.clientId })).to.equal(NEW);
      await pinCredential(harness().db, { client: fresh.clientId }, OLD);
      expect(expectStatus(await client.get('/orders'), 200).headers.get('api-version')).to.equal(OLD);
    });

    it('refuses a request at a pin the service no longer serves', async () => {
      const fresh = await newOrg();
      // Pinned before its first request (no instance has the key cached yet) to a version past its sunset.
      await harness().db('api_keys').where({ organization_id: fresh.id }).update({ api_version: '2020-01-01' });
      const problem = problemOf(await fresh.api.get('/orders'), 400);
      expect(problem.type).to.equal('/problems/unsupported-api-version');
      expect(problem.detail).to.contain('2020-01-01').and.contain(NEW);
    });
  });

  describe('webhooks', function () {
    this.timeout(60_000);
    let receiver: Receiver;
    before(async function () {
      onlyDirect(this, 'delivers from the test process to a webhook receiver in it');
      receiver = await new Receiver().start();
    });
    after(async () => receiver?.stop());

    /** Delivers the endpoint's entries (this process, a real sender) until the receiver has `n` on `path`. */
    const deliver = async (endpointId: string, path: string, n: number) => {
      const deps = localDelivery('versions-test');
      await eventually(`${n} deliveries on ${path}`, async () => {
        await deliverEndpoint(deps, endpointId);
        return receiver.accepted(path).length >= n;
      });
      return receiver.accepted(path);
    };
    const newOrder = async (purchaseOrderNumber: string) =>
      expectStatus(await org.api.post('/orders', { ...BASE, purchaseOrderNumber, jobId: refs.job, type: 'STANDARD' }, at(NEW)), 201).body.id as string;
    const writeOrder = async (id: string, notes: string, type: 'MAJOR' | 'STANDARD' = 'STANDARD') =>
      expectStatus(await org.api.patch(`/orders/${id}`, { notes, type }, at(NEW)), 200);

    it('sends a change written at the newer version to an endpoint created at the older one in the older shape, signed', async () => {
      const created = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/old'), types: ['order.updated'] }, at(OLD)), 201).body;
      expect(created).to.include({ apiVersion: OLD, apiVersionAfter: null, previousApiVersion: null });
      receiver.secrets.set('/old', [created.secret]);
      const id = await newOrder('PO-V-HOOK-1');
      await writeOrder(id, 'for the old endpoint', 'MAJOR');
      const [received] = await deliver(created.id, '/old', 1);
      expect(received.verifiedBy).to.deep.equal([0]);
      expect(received.body.data.data).to.include({ id, isProjectPO: true, version: 0, notes: 'for the old endpoint' });
      expect(received.body.data.changedFields).to.include('isProjectPO');
    });

    it('switches an endpoint to the newer version at a cursor during writes: every entry once, older shape up to it, newer after', async () => {
      const created = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/switch'), types: ['order.updated'] }, at(OLD)), 201).body;
      receiver.secrets.set('/switch', [created.secret]);
      const id = await newOrder('PO-V-HOOK-2');
      for (let i = 0; i < 3; i++) await writeOrder(id, `before ${i}`);
      const cursor = await headCursor(org.api);
      for (let i = 0; i < 2; i++) await writeOrder(id, `after ${i}`);
      const patched = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { apiVersion: NEW, apiVersionAfter: cursor }), 200).body;
      expect(patched).to.include({ apiVersion: NEW, apiVersionAfter: cursor, previousApiVersion: OLD });
      for (let i = 2; i < 4; i++) await writeOrder(id, `after ${i}`);
      const received = await deliver(created.id, '/switch', 7);
      expect(received.map((r) => r.body.data.data.notes)).to.deep.equal(['before 0', 'before 1', 'before 2', 'after 0', 'after 1', 'after 2', 'after 3']);
      expect(new Set(received.map((r) => r.id)).size).to.equal(7);
      expect(received.every((r) => r.verifiedBy.length === 1)).to.equal(true);
      const switchedAfter = decodeCursor(org.id, cursor)!;
      for (const r of received) {
        const old = decodeCursor(org.id, r.body.data.cursor)! <= switchedAfter;
        expect(r.body.data.data, r.body.data.data.notes).to.satisfy((d: any) =>
          old ? 'isProjectPO' in d && 'version' in d : !('isProjectPO' in d) && !('version' in d),
        );
      }
      expect(problemOf(await org.api.patch(`/webhook-endpoints/${created.id}`, { apiVersion: '2020-01-01' }), 400).errors[0]).to.include({
        field: 'body.apiVersion',
      });
    });
  });

  describe('the mock at the older version (npm run mock -- --api-version)', function () {
    // Prism parses the whole contract at start: on a loaded 2-core machine, well over a minute.
    this.timeout(240_000);
    let prism: Child;
    let base: string;
    before(async () => {
      ({ prism, base } = await startPrism('--api-version', OLD));
    });
    after(async () => prism?.stop());

    const call = (method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: { Authorization: 'Bearer pk_mock', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    it('answers in the older shape and refuses a field of the newer one, naming it', async () => {
      const read = await call('GET', '/orders/0b1c2d3e-4f5a-4b6c-8d9e-9f0a1b2c3d4e');
      expect(read.status).to.equal(200);
      expect(read.headers.get('api-version')).to.equal(OLD);
      expect(await read.json()).to.include.keys('version', 'isProjectPO');
      const refused = await call('POST', '/orders', { ...BASE, isVisibleToField: true });
      expect(refused.status).to.equal(400);
      expect((await refused.json()).errors.map((e: any) => e.field)).to.include('body.isVisibleToField');
      expect((await call('POST', '/orders', { ...BASE, isVisibileToField: true })).status).to.equal(201);
    });
  });
});
