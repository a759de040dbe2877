import { expect } from 'chai';
import { harness } from './support/harness';
import { Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { Receiver } from './support/webhook-receiver';
import { createDevelopmentDemo, DEVELOPMENT_SETTINGS } from '../src/admin/demo';
import { allowedHostsOf } from '../src/webhooks/settings';
import { Sender } from '../src/webhooks/send';

/**
 * The development route (issue #43 points 3 and 4): the demo organization `npm start` creates on
 * the embedded database (ensureDemoOrganization -> createDevelopmentDemo) gets development rate
 * limits and may have webhook receivers on this machine; every other organization keeps the
 * production defaults.
 */
describe('the development demo organization', function () {
  this.timeout(120_000);
  let dev: Client;
  let devId: string;
  let plain: TestOrg;

  before(async () => {
    const org = await createDevelopmentDemo(harness().db);
    devId = org.organization.id;
    dev = new Client(org.apiKey);
    plain = await newOrg();
  });

  it('has development rate limits, well above the defaults an ordinary organization keeps', async () => {
    const policy = expectStatus(await dev.get('/tax-codes'), 200).headers.get('ratelimit-policy');
    expect(policy).to.equal(`"org-burst";q=${DEVELOPMENT_SETTINGS.rateLimitBurst};w=1, "org-hourly";q=${DEVELOPMENT_SETTINGS.rateLimitHourly};w=3600`);
    const defaults = expectStatus(await plain.api.get('/tax-codes'), 200).headers.get('ratelimit-policy');
    expect(defaults).to.equal(`"org-burst";q=${process.env.RATE_LIMIT_BURST};w=1, "org-hourly";q=${process.env.RATE_LIMIT_HOURLY};w=3600`);
    // Ten times the production defaults (RATE_LIMIT_BURST 20, RATE_LIMIT_HOURLY 3600; the suite runs with its own).
    expect(DEVELOPMENT_SETTINGS.rateLimitBurst).to.be.at.least(200);
    expect(DEVELOPMENT_SETTINGS.rateLimitHourly).to.be.at.least(36_000);
  });

  it('may register a receiver on this machine over plain http; an ordinary organization may not', async () => {
    for (const url of ['http://localhost:9/hooks', 'http://[::1]:9/hooks']) {
      expectStatus(await dev.post('/webhook-endpoints', { url, enabled: false }), 201);
      const refused = problemOf(await plain.api.post('/webhook-endpoints', { url, enabled: false }), 400);
      expect(refused.errors[0]).to.include({ field: 'body.url', rule: 'webhookUrl' });
    }
    // Only this machine: a private address elsewhere stays refused.
    problemOf(await dev.post('/webhook-endpoints', { url: 'http://10.0.0.5/hooks', enabled: false }), 400);
  });

  it("delivers to the receiver on this machine for the development organization only (the worker's sender)", async () => {
    const receiver = await new Receiver().start();
    const sender = new Sender([], 5_000);
    try {
      const url = `http://localhost:${receiver.port}/dev`;
      const body = JSON.stringify({ type: 'vendor.created', timestamp: new Date().toISOString(), data: {} });
      const headers = { 'webhook-id': 'msg_dev_1', 'webhook-timestamp': '0', 'webhook-signature': 'v1,x' };
      const delivered = await sender.send(url, headers, body, await allowedHostsOf(harness().db, devId, []));
      expect(delivered.outcome, delivered.error ?? '').to.equal('succeeded');
      const refused = await sender.send(url, { ...headers, 'webhook-id': 'msg_dev_2' }, body, await allowedHostsOf(harness().db, plain.id, []));
      expect(refused.outcome).to.equal('retry');
      expect(refused.error).to.match(/must use https/);
      expect(receiver.requests.map((r) => r.id)).to.deep.equal(['msg_dev_1']);
    } finally {
      sender.close();
      await receiver.stop();
    }
  });
});
