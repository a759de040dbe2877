import { expect } from 'chai';
import { harness } from './support/harness';
import { anonymous, Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { headCursor, readAll } from './support/feed';
import { onlyDirect } from './support/proxy';
import { eventually, Receiver } from './support/webhook-receiver';
import { writeTransaction } from '../src/feed/append';
import { startBackgroundWorker, BackgroundWorker } from '../src/background/worker';
import { SCAN } from '../src/background/deliver';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';

// The API checks webhook targets against WEBHOOK_ALLOWED_HOSTS on every request; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/** A client authenticated with the organization's OAuth client (a token from POST /oauth2/token). */
async function oauthClient(org: TestOrg): Promise<Client> {
  const res = await anonymous().post('/oauth2/token', undefined, {
    raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.clientSecret }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });
  return new Client(expectStatus(res, 200).body.access_token);
}

/** The API key's id, as `admin org show` lists it (never the key itself). */
const apiKeyId = async (org: TestOrg): Promise<string> =>
  (await harness().db('api_keys').where({ organization_id: org.id }).whereNull('revoked_at').first('id')).id;

let seq = 0;
const code = () => `VO-${process.pid}-${++seq}`;

describe('change origin: who made each change', () => {
  let org: TestOrg;
  let oauth: Client;
  before(async () => {
    org = await newOrg();
    oauth = await oauthClient(org);
  });

  it('names the API key, the OAuth client and the system on entries, with the request id and the Idempotency-Key', async () => {
    const cursor = await headCursor(org.api);
    const byKey = expectStatus(await org.api.post('/vendors', { code: code(), name: 'By key' }, { headers: { 'Idempotency-Key': 'origin-1' } }), 201);
    const byClient = expectStatus(await oauth.patch(`/vendors/${byKey.body.id}`, { name: 'By client' }), 200);
    // A write with no request (admin CLI, demo data, retention) is the system's.
    await writeTransaction(harness().db, org.id, async (_trx, changes) => {
      changes.add({ type: 'vendor.updated', resource: 'vendor', id: byKey.body.id, data: { id: byKey.body.id } });
    });
    const { entries } = await readAll(org.api, cursor);
    expect(entries.map((e: any) => e.origin)).to.deep.equal([
      { credentialType: 'api_key', credentialId: await apiKeyId(org), requestId: byKey.headers.get('x-request-id'), idempotencyKey: 'origin-1' },
      { credentialType: 'oauth_client', credentialId: org.clientId, requestId: byClient.headers.get('x-request-id'), idempotencyKey: null },
      { credentialType: 'system', credentialId: null, requestId: null, idempotencyKey: null },
    ]);
    expect(org.clientId).to.match(/^cl_/);
    // Never a secret.
    expect(JSON.stringify(entries)).to.not.contain(org.apiKey).and.not.contain(org.clientSecret);
  });

  it("leaves out the caller's own entries with excludeOrigins=self (either credential), and named credentials; nextCursor moves past them", async () => {
    const cursor = await headCursor(org.api);
    const a = expectStatus(await org.api.post('/vendors', { code: code(), name: 'Key write' }), 201).body;
    const b = expectStatus(await oauth.post('/vendors', { code: code(), name: 'Client write' }), 201).body;
    const ids = async (client: Client, query: string) => (await readAll(client, cursor, query)).entries.map((e) => e.id);
    expect(await ids(org.api, '&excludeOrigins=self')).to.deep.equal([b.id]);
    expect(await ids(oauth, '&excludeOrigins=self')).to.deep.equal([a.id]);
    expect(await ids(org.api, `&excludeOrigins=${org.clientId}`)).to.deep.equal([a.id]);
    expect(await ids(org.api, `&excludeOrigins=self,${org.clientId}`)).to.deep.equal([]);
    expect(await ids(org.api, `&excludeOrigins=self&excludeOrigins=${org.clientId}`)).to.deep.equal([]);
    // Everything after the cursor was the caller's own: the page is empty and its nextCursor is the head.
    const page = expectStatus(await org.api.get(`/changes?after=${cursor}&excludeOrigins=self,${org.clientId}`), 200).body;
    expect(page.data).to.deep.equal([]);
    expect(page.nextCursor).to.equal(await headCursor(org.api));
  });

  it('stores `self` of a webhook endpoint as the id of the credential that set it', async function () {
    onlyDirect(this, 'creates an endpoint on 127.0.0.1, which only the in-process service allows (WEBHOOK_ALLOWED_HOSTS)');
    const created = expectStatus(
      await oauth.post('/webhook-endpoints', { url: 'https://127.0.0.1:9/hooks', excludeOrigins: ['self'], enabled: false }),
      201,
    ).body;
    expect(created.excludeOrigins).to.deep.equal([org.clientId]);
    const updated = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { excludeOrigins: ['self', org.clientId] }), 200).body;
    expect(updated.excludeOrigins).to.deep.equal([await apiKeyId(org), org.clientId]);
    problemOf(await org.api.patch(`/webhook-endpoints/${created.id}`, { excludeOrigins: [''] }), 400);
  });
});

describe('change origin on webhook deliveries', function () {
  this.timeout(90_000);
  let receiver: Receiver;
  let worker: BackgroundWorker | undefined;

  before(async function () {
    onlyDirect(this, 'runs a delivery worker and a webhook receiver in the test process, on the database of the in-process service');
    receiver = await new Receiver().start();
  });
  after(async () => {
    await worker?.stop();
    await receiver?.stop();
  });
  const startWorker = async () => {
    worker ??= await startBackgroundWorker({
      db: harness().db,
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: {
        ...webhookSettings(loadConfig()),
        allowedHosts: ['127.0.0.1'],
        timeoutMs: 2_000,
        retryBaseMs: 20,
        retryMaxMs: 200,
        giveUpAfterMs: 3_600_000,
        concurrency: 3,
      },
      pollInterval: 100,
    });
  };

  it('does not send an endpoint the entries of the credentials it excludes (self: its creator), and sends each entry its origin', async () => {
    const org = await newOrg();
    const oauth = await oauthClient(org);
    const created = expectStatus(
      await org.api.post('/webhook-endpoints', { url: receiver.url('/origin'), excludeOrigins: ['self'], types: ['vendor.created', 'vendor.updated'] }),
      201,
    ).body;
    receiver.secrets.set('/origin', [created.secret]);
    await startWorker();
    // The endpoint's own credential writes first (an echo), then the other one: entries go out in
    // feed order, so had the echo not been left out it would arrive before the other's entry.
    const echo = expectStatus(await org.api.post('/vendors', { code: code(), name: 'Echo' }), 201).body;
    const foreign = expectStatus(await oauth.post('/vendors', { code: code(), name: 'From the ERP' }), 201);
    const last = expectStatus(await org.api.patch(`/vendors/${echo.id}`, { name: 'Echo again' }), 200).body;
    const system = await writeTransaction(harness().db, org.id, async (_trx, changes) => {
      changes.add({ type: 'vendor.updated', resource: 'vendor', id: last.id, data: { ...last, name: 'By the system' } });
      return last.id;
    });
    await eventually('the system entry is delivered', () => receiver.accepted('/origin').length >= 2, 60_000);
    const received = receiver.accepted('/origin').map((r) => r.body.data);
    expect(received.map((d: any) => [d.type, d.id, d.origin.credentialType])).to.deep.equal([
      ['vendor.created', foreign.body.id, 'oauth_client'],
      ['vendor.updated', system, 'system'],
    ]);
    expect(received[0].origin).to.deep.equal({
      credentialType: 'oauth_client',
      credentialId: org.clientId,
      requestId: foreign.headers.get('x-request-id'),
      idempotencyKey: null,
    });
    expect(receiver.accepted('/origin').every((r) => r.verifiedBy.length > 0)).to.equal(true);
  });

  it('moves an endpoint past the entries it is not sent (its own writes), so no later run or sweep reads them again', async () => {
    const org = await newOrg();
    const oauth = await oauthClient(org);
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/passed'), excludeOrigins: ['self'] }), 201).body;
    receiver.secrets.set('/passed', [created.secret]);
    await startWorker();
    const db = harness().db;
    const standing = async () => {
      const ep = await db('webhook_endpoints').where({ id: created.id }).first('delivered_position');
      const head = await db('feed_heads').where({ organization_id: org.id }).first('position');
      return { at: Number(ep.delivered_position), head: Number(head.position) };
    };
    const atHead = async () => {
      const s = await standing();
      return s.at === s.head;
    };
    // 200 entries of the endpoint's own credential: not one is sent, and the endpoint stands at the head.
    const inputs = Array.from({ length: 200 }, () => ({ code: code(), name: 'Own write' }));
    expectStatus(await org.api.post('/vendors/batch', { inputs }), 200);
    await eventually('the endpoint stands at the head', atHead, 30_000);
    expect((await standing()).head).to.be.greaterThan(200);
    // Then an entry it is sent: delivered, and the endpoint stands at the head again.
    const foreign = expectStatus(await oauth.post('/vendors', { code: code(), name: 'From the ERP' }), 201).body;
    await eventually('the foreign entry is delivered', () => receiver.accepted('/passed').length >= 1, 30_000);
    expect(receiver.accepted('/passed').map((r) => r.body.data.id)).to.deep.equal([foreign.id]);
    // The receiver answers before the deliverer logs the attempt and moves the endpoint on (one
    // statement, after the answer): the log is read once the endpoint stands at the head again.
    await eventually('the endpoint stands at the head again', atHead, 30_000);
    expect(Number((await db('webhook_deliveries').where({ endpoint_id: created.id }).count('* as n'))[0].n)).to.equal(1);
  });

  it("sends the entries at either side of a read's bound once each, past reads that find none (the deliverer reads SCAN entries at a time)", async () => {
    const org = await newOrg();
    const vendor = expectStatus(await org.api.post('/vendors', { code: code(), name: 'Standing still' }), 201).body;
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/windows'), types: ['vendor.created'] }), 201).body;
    receiver.secrets.set('/windows', [created.secret]);
    const db = harness().db;
    // The head after the endpoint's creation (its own entry included): the endpoint stands before it.
    const start = Number((await db('feed_heads').where({ organization_id: org.id }).first('position')).position);
    // One transaction (one doorbell) of 2 * SCAN + 1 entries, two of them sent: the last a first
    // read looks through, and the first after a second read that finds none. The others are
    // updates the endpoint does not follow; every entry's data is the vendor as stored, so its
    // state stays true.
    const wanted = new Set([start + SCAN, start + 2 * SCAN + 1]);
    const entries = Array.from({ length: 2 * SCAN + 1 }, (_, i) => ({
      type: wanted.has(start + i + 1) ? ('vendor.created' as const) : ('vendor.updated' as const),
      resource: 'vendor' as const,
      id: vendor.id,
      data: vendor,
    }));
    await writeTransaction(db, org.id, async (_trx, changes) => {
      for (const e of entries) changes.add(e);
    });
    await startWorker();
    await eventually('both entries are delivered', () => receiver.accepted('/windows').length >= 2, 60_000);
    expect(receiver.accepted('/windows').map((r) => r.body.type)).to.deep.equal(['vendor.created', 'vendor.created']);
    // The receiver answers before the deliverer logs the attempt: the last entry's log row is
    // written in the statement that moves the endpoint to it, so the log is read after that.
    await eventually(
      'the endpoint stands at the head',
      async () => Number((await db('webhook_endpoints').where({ id: created.id }).first('delivered_position')).delivered_position) === start + 2 * SCAN + 1,
      30_000,
    );
    const log = await db('webhook_deliveries').where({ endpoint_id: created.id }).orderBy('seq').select('position', 'status');
    expect(log.map((r) => [Number(r.position), r.status])).to.deep.equal([...wanted].map((p) => [p, 'succeeded']));
  });
});
