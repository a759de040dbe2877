import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { harness } from './support/harness';
import { anonymous, expectStatus, newOrg, TestOrg } from './support/client';
import { createClient, deleteClient, rotateApiKey } from '../src/admin/provision';
import { CREDENTIAL_TTL_MS } from '../src/auth/credential-cache';

/**
 * Revocation across instances: instance A is the in-process service (whose admin code path
 * revokes), instance B a second process on the same database (test/support/instance-process.ts) that has
 * the credential in its cache. B hears of the revocation through PostgreSQL LISTEN/NOTIFY.
 */
describe('authentication across two instances', function () {
  this.timeout(30_000);
  let b: ChildProcess | undefined;
  let bBase = '';

  before(async function () {
    if (!harness().inProcess) return this.skip();
    b = spawn(process.execPath, [join(__dirname, 'support', 'instance-process.js')], {
      env: { ...process.env, DATABASE_URL: harness().databaseUrl, JWT_SECRET: harness().jwtSecret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: b!.stdout! }).once('line', resolve);
      b!.once('exit', (code) => reject(new Error(`instance B exited with ${code}`)));
    });
    bBase = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
  });

  after(async () => {
    if (!b || b.exitCode !== null) return;
    const exited = new Promise((resolve) => b!.once('exit', resolve));
    b.kill('SIGTERM');
    await exited;
  });

  const onB = async (path: string, credential: string) => (await fetch(bBase + path, { headers: { authorization: `Bearer ${credential}` } })).status;

  /**
   * Whether B refuses `credential` on `path` because it heard of the revocation: B's answers every
   * 20 ms until it is 401, each counted only if it arrived before the cache's TTL could have run out
   * for an entry made no earlier than `cachedFrom` (then only the notification flushed it). A bound
   * on the mechanism, not on the machine's speed: a notification that takes a few seconds on a
   * loaded machine still passes, a cache that only expires never does.
   */
  async function refusedByBThroughTheNotification(path: string, credential: string, cachedFrom: number): Promise<boolean> {
    const expiry = cachedFrom + CREDENTIAL_TTL_MS;
    for (;;) {
      const status = await onB(path, credential);
      const answeredAt = Date.now();
      if (answeredAt >= expiry) return false;
      if (status === 401) return true;
      expect(status).to.equal(200);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async function token(client: { clientId: string; clientSecret: string }): Promise<string> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString();
    const res = await anonymous().post('/oauth2/token', undefined, { raw: body, contentType: 'application/x-www-form-urlencoded' });
    return expectStatus(res, 200).body.access_token;
  }

  let org: TestOrg;
  beforeEach(async () => {
    org = await newOrg();
  });

  it('a key rotated through instance A is refused by instance B at once (its notification, not the cache TTL)', async () => {
    // Known to B (cached) before the rotation.
    const cachedFrom = Date.now();
    expect(await onB('/tax-codes', org.apiKey)).to.equal(200);
    expect(await onB('/tax-codes', org.apiKey)).to.equal(200);
    const { apiKey } = await rotateApiKey(harness().db, org.id);
    expect(await refusedByBThroughTheNotification('/tax-codes', org.apiKey, cachedFrom)).to.equal(true);
    expect(await onB('/tax-codes', apiKey)).to.equal(200);
  });

  it('a token whose client is deleted through instance A is refused by instance B at once (its notification, not the cache TTL)', async () => {
    const client = await createClient(harness().db, org.id);
    const t = await token(client);
    const cachedFrom = Date.now();
    expect(await onB('/jobs?limit=1', t)).to.equal(200);
    expect(await onB('/jobs?limit=1', t)).to.equal(200);
    await deleteClient(harness().db, client.clientId);
    expect(await refusedByBThroughTheNotification('/jobs?limit=1', t, cachedFrom)).to.equal(true);
  });

  it('while B has lost its LISTEN connection it trusts no cached credential', async () => {
    const listener = () =>
      harness()
        .db('pg_stat_activity')
        .where({ application_name: 'procurement-api-revocations', datname: harness().db.raw('current_database()') })
        .pluck('pid');
    expect(await onB('/tax-codes', org.apiKey)).to.equal(200);
    const before = await listener();
    expect(before.length).to.be.at.least(2); // A's and B's
    await harness().db.raw('SELECT pg_terminate_backend(pid) FROM unnest(?::int[]) AS pid', [before]);
    // Wait until the instances have connected again (so they have noticed the loss).
    for (let i = 0; i < 200; i++) {
      const now = await listener();
      if (now.length >= before.length && now.every((pid: number) => !before.includes(pid))) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    // A revocation that sends no notification (as if it were missed): B must still refuse at once.
    await harness().db('api_keys').where({ organization_id: org.id }).update({ revoked_at: harness().db.fn.now() });
    expect(await onB('/tax-codes', org.apiKey)).to.equal(401);
  });
});
