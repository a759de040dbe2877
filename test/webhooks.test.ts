import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { itDirect, PRISM } from './support/proxy';
import { decodeCursor, encodeCursor } from '../src/feed/cursor';
import { isPublicAddress } from '../src/webhooks/ssrf';
import { parseRetryAfter } from '../src/webhooks/send';
import { retryDelay } from '../src/background/deliver';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';
import { CHANGE_EVENTS, CHANGE_TYPES, FEED_RESOURCES } from '../src/feed/change-types';
import { isChangeType } from '../src/feed/change-type-filter';

// The API checks targets against WEBHOOK_ALLOWED_HOSTS on every request (npm run proxy-check sets it for its service).
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/** A target on this machine where nothing listens (port 9, discard): no request ever leaves it. */
const LOCAL = 'https://127.0.0.1:9/hooks';

describe('webhook endpoints', () => {
  let org: TestOrg;
  let other: TestOrg;

  before(async () => {
    org = await newOrg();
    other = await newOrg();
  });

  it('creates an endpoint with a secret shown once; reads, lists, updates and deletes it', async () => {
    const created = expectStatus(
      await org.api.post('/webhook-endpoints', { url: LOCAL, description: 'ERP sync', types: ['vendor.created', 'vendor.updated'] }),
      201,
    ).body;
    expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).to.include({ url: LOCAL, description: 'ERP sync', enabled: true, status: 'active', failingSince: null, previousSecretExpiresAt: null });
    expect(created.types).to.deep.equal(['vendor.created', 'vendor.updated']);
    const read = expectStatus(await org.api.get(`/webhook-endpoints/${created.id}`), 200).body;
    expect(read).to.not.have.property('secret');
    expect(read).to.deep.equal(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret')));
    const all = expectStatus(await org.api.get('/webhook-endpoints'), 200).body as any[];
    expect(all.map((e) => e.id)).to.include(created.id);
    expect(all.every((e) => !('secret' in e))).to.equal(true);

    const paused = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { enabled: false, types: null, description: 'paused' }), 200).body;
    expect(paused).to.include({ enabled: false, status: 'disabled', types: null, description: 'paused' });
    expectStatus(await org.api.delete(`/webhook-endpoints/${created.id}`), 200);
    problemOf(await org.api.get(`/webhook-endpoints/${created.id}`), 404);
    problemOf(await org.api.delete(`/webhook-endpoints/${created.id}`), 404);
  });

  it('stores and answers every change type the service accepts, also those not written today (the answers match the contract)', async () => {
    // Every resource of the feed with every event of it: what `types` accepts (isChangeType).
    const events = [...new Set(Object.values(CHANGE_EVENTS).flat())];
    const accepted = FEED_RESOURCES.flatMap((r) => events.map((e) => `${r}.${e}`));
    expect(accepted.every(isChangeType)).to.equal(true);
    const notWritten = accepted.filter((t) => !(CHANGE_TYPES as readonly string[]).includes(t));
    expect(notWritten, 'pairs not written today, such as group.deleted').to.include('group.deleted');
    // The create, the read, the list and the update are each validated against their response schema (test mode).
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL, types: accepted, enabled: false }), 201).body;
    expect(created.types).to.deep.equal(accepted);
    expect(expectStatus(await org.api.get(`/webhook-endpoints/${created.id}`), 200).body.types).to.deep.equal(accepted);
    const listed = expectStatus(await org.api.get('/webhook-endpoints'), 200).body.find((e: { id: string }) => e.id === created.id);
    expect(listed?.types).to.deep.equal(accepted);
    const updated = expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { types: notWritten }), 200).body;
    expect(updated.types).to.deep.equal(notWritten);
    expectStatus(await org.api.delete(`/webhook-endpoints/${created.id}`), 200);
  });

  it('records its own changes in the change feed, without the secret', async () => {
    const o = await newOrg();
    const created = expectStatus(await o.api.post('/webhook-endpoints', { url: LOCAL }), 201).body;
    expectStatus(await o.api.patch(`/webhook-endpoints/${created.id}`, { description: 'renamed' }), 200);
    expectStatus(await o.api.post(`/webhook-endpoints/${created.id}/rotate-secret`), 200);
    expectStatus(await o.api.delete(`/webhook-endpoints/${created.id}`), 200);
    const rows = await harness().db('change_feed').where({ organization_id: o.id, resource_id: created.id }).orderBy('position');
    expect(rows.map((r: any) => r.type)).to.deep.equal([
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.updated',
      'webhook_endpoint.deleted',
    ]);
    expect(JSON.stringify(rows.map((r: any) => r.data))).to.not.match(/whsec_/);
    expect(rows[3].data).to.include({ id: created.id });
  });

  it('rotates the secret: a new one, the previous one signing until previousSecretExpiresAt', async () => {
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL }), 201).body;
    const rotated = expectStatus(await org.api.post(`/webhook-endpoints/${created.id}/rotate-secret`), 200).body;
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(created.secret);
    const hours = (Date.parse(rotated.previousSecretExpiresAt!) - Date.parse(rotated.updatedAt)) / 3_600_000;
    expect(hours).to.be.closeTo(24, 0.01);
  });

  it('refuses targets on our own network, by address or by the address a name resolves to, and plain http', async () => {
    const refused = [
      'https://localhost/hooks',
      'https://127.0.0.2/hooks',
      'https://10.0.0.5/hooks',
      'https://192.168.1.10/hooks',
      'https://172.16.0.1/hooks',
      'https://100.64.0.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[fd00:ec2::254]/hooks',
      'https://[::ffff:10.0.0.1]/hooks',
      'https://[::127.0.0.1]:9443/',
      'https://0.0.0.0/hooks',
      'http://erp.granitepeak.example/hooks',
      'ftp://erp.granitepeak.example/hooks',
      'https://user:pass@erp.granitepeak.example/hooks',
      'not a url',
    ];
    for (const url of refused) {
      const p = problemOf(await org.api.post('/webhook-endpoints', { url }), 400);
      expect(p.errors[0], url).to.include({ field: 'body.url', rule: 'webhookUrl' });
    }
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL }), 201).body;
    problemOf(await org.api.patch(`/webhook-endpoints/${created.id}`, { url: 'https://localhost:8443/hooks' }), 400);
    // Hosts listed in WEBHOOK_ALLOWED_HOSTS may be private and use http.
    expectStatus(await org.api.patch(`/webhook-endpoints/${created.id}`, { url: 'http://127.0.0.1:9/other' }), 200);
  });

  it('classifies addresses: only public unicast is reachable', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '::a9fe:a9fe',
      '::10.0.0.1',
      '224.0.0.1',
      '255.255.255.255',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).to.equal(false);
    }
    for (const a of ['8.8.8.8', '151.101.1.69', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).to.equal(true);
  });

  itDirect(
    'validates requests: url required, type names, no unknown fields, page size',
    PRISM.invalidRequest('bodies and a limit that break the schema'),
    async () => {
      problemOf(await org.api.get('/webhook-endpoints?limit=0'), 400);
      problemOf(await org.api.unchecked.post('/webhook-endpoints', { description: 'no url' }), 400);
      problemOf(await org.api.post('/webhook-endpoints', { url: LOCAL, types: ['Vendor Updated'] }), 400);
      problemOf(await org.api.post('/webhook-endpoints', { url: LOCAL, types: [] }), 400);
      problemOf(await org.api.unchecked.post('/webhook-endpoints', { url: LOCAL, secret: 'whsec_mine' }), 400);
      const created = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL }), 201).body;
      problemOf(await org.api.patch(`/webhook-endpoints/${created.id}`, {}), 400);
      problemOf(await org.api.unchecked.post(`/webhook-endpoints/${created.id}/replay`, {}), 400);
    },
  );

  itDirect(
    'refuses an event type the change feed does not know, at creation and update, with the rule and message of GET /changes',
    PRISM.invalidRequest('event types outside ChangeTypeFilter'),
    async () => {
      const rule = (p: { errors: { message: string; rule?: string }[] }) => ({
        rule: p.errors[0].rule,
        message: p.errors[0].message.replace(/^[a-z]+\.types\[\d+\]: /, ''),
      });
      const feed = problemOf(await org.api.get('/changes?types=foo.bar'), 400);
      const before = expectStatus(await org.api.get('/webhook-endpoints'), 200).body.length;
      const created = problemOf(await org.api.post('/webhook-endpoints', { url: LOCAL, types: ['vendor.updated', 'foo.bar'] }), 400);
      expect(created.errors[0]).to.include({ field: 'body.types[1]', rule: 'pattern' });
      expect(created.errors[0].message).to.equal('body.types[1]: foo.bar is not a change type (<resource>.<event>, e.g. vendor.updated)');
      // The feed's parameter also takes a comma-separated list, and its message says so.
      expect(rule(created).rule).to.equal(rule(feed).rule);
      expect(rule(feed).message).to.equal(`${rule(created).message} or a comma-separated list of them`);
      expect(expectStatus(await org.api.get('/webhook-endpoints'), 200).body).to.have.length(before);
      const endpoint = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL, types: ['vendor.updated', 'item.deleted'] }), 201).body;
      const updated = problemOf(await org.api.patch(`/webhook-endpoints/${endpoint.id}`, { types: ['bogus.type'] }), 400);
      expect(updated.errors[0].message).to.equal('body.types[0]: bogus.type is not a change type (<resource>.<event>, e.g. vendor.updated)');
      // A resource the feed reports with an event it never reports.
      const misspelt = problemOf(await org.api.patch(`/webhook-endpoints/${endpoint.id}`, { types: ['vendor.update'] }), 400);
      expect(misspelt.errors[0].message).to.equal('body.types[0]: vendor.update is not a change type (<resource>.<event>, e.g. vendor.updated)');
      expect(expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}`), 200).body.types).to.deep.equal(['vendor.updated', 'item.deleted']);
      expectStatus(await org.api.delete(`/webhook-endpoints/${endpoint.id}`), 200);
    },
  );

  it('replay refuses a malformed cursor and one of another organization', async () => {
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL }), 201).body;
    let p = problemOf(await org.api.post(`/webhook-endpoints/${created.id}/replay`, { after: 'not-a-cursor' }), 400);
    expect(p.errors[0]).to.include({
      field: 'body.after',
      rule: 'cursor',
      message: 'body.after: is not a cursor of this feed (use a cursor the feed or a delivery returned)',
    });
    p = problemOf(await org.api.post(`/webhook-endpoints/${created.id}/replay`, { after: encodeCursor(other.id, 1) }), 400);
    expect(p.errors[0]).to.include({ field: 'body.after' });
    const after = encodeCursor(org.id, 0);
    expect(expectStatus(await org.api.post(`/webhook-endpoints/${created.id}/replay`, { after }), 202).body).to.deep.equal({ endpointId: created.id, after });
  });

  it("answers another organization's endpoint exactly like a missing one", async () => {
    const created = expectStatus(await org.api.post('/webhook-endpoints', { url: LOCAL }), 201).body;
    const mine = `/webhook-endpoints/${created.id}` as const;
    const none = `/webhook-endpoints/${MISSING_ID}`;
    await expectForeignLikeMissing(other, 'GET', mine, none);
    await expectForeignLikeMissing(other, 'PATCH', mine, none, { description: 'taken over' });
    await expectForeignLikeMissing(other, 'POST', `${mine}/rotate-secret`, `${none}/rotate-secret`);
    await expectForeignLikeMissing(other, 'GET', `${mine}/deliveries`, `${none}/deliveries`);
    await expectForeignLikeMissing(other, 'POST', `${mine}/replay`, `${none}/replay`, { after: encodeCursor(other.id, 0) });
    await expectForeignLikeMissing(other, 'DELETE', mine, none);
    expect((expectStatus(await other.api.get('/webhook-endpoints'), 200).body as any[]).map((e) => e.id)).to.not.include(created.id);
    expect(expectStatus(await org.api.get(mine), 200).body.description).to.equal('');
  });

  it('feed cursors are opaque and bound to their organization', () => {
    const c = encodeCursor(org.id, 42);
    expect(decodeCursor(org.id, c)).to.equal(42);
    expect(decodeCursor(other.id, c)).to.equal(undefined);
    expect(decodeCursor(org.id, c.slice(0, 12) + (c[12] === 'A' ? 'B' : 'A') + c.slice(13))).to.equal(undefined);
    // Every other last character, including those differing only in the padding bits base64url
    // decoders ignore (this depends on the organization's id, so it is checked for all 63).
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const accepted = [...alphabet].filter((ch) => ch !== c.at(-1) && decodeCursor(org.id, c.slice(0, -1) + ch) !== undefined);
    expect(accepted).to.deep.equal([]);
    for (const position of [0, 7, 42, 1234, 2 ** 40]) {
      const padded = encodeCursor(org.id, position);
      const tampered = [...alphabet].filter((ch) => ch !== padded.at(-1) && decodeCursor(org.id, padded.slice(0, -1) + ch) !== undefined);
      expect(tampered, `position ${position}`).to.deep.equal([]);
    }
    expect(decodeCursor(org.id, '')).to.equal(undefined);
  });

  it('retries with exponential backoff and jitter, honouring Retry-After, the first retry within 30 s', () => {
    const s = webhookSettings(loadConfig({}));
    expect(s).to.include({ timeoutMs: 10_000, retryBaseMs: 5_000, giveUpAfterMs: 24 * 3_600_000, secretOverlapMs: 24 * 3_600_000 });
    expect(retryDelay(s, 1, {}, () => 1)).to.be.at.most(30_000);
    expect([retryDelay(s, 3, {}, () => 0), retryDelay(s, 3, {}, () => 1)]).to.deep.equal([10_000, 20_000]);
    expect(retryDelay(s, 40, {}, () => 1)).to.equal(s.retryMaxMs);
    expect(retryDelay(s, 1, { retryAfterMs: 120_000 })).to.equal(120_000);
    expect(parseRetryAfter('7')).to.equal(7000);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).to.be.within(58_000, 60_000);
    expect(parseRetryAfter('soon')).to.equal(undefined);
  });
});
