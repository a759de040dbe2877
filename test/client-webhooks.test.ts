import { expect } from 'chai';
import { verifyWebhook, WebhookVerificationError } from '../client/src/index.mjs';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { onlyDirect } from './support/proxy';
import { eventually, Receiver, restOtherEndpoints, type Received } from './support/webhook-receiver';
import { startBackgroundWorker, type BackgroundWorker } from '../src/background/worker';
import { webhookSettings } from '../src/webhooks/settings';
import { loadConfig } from '../src/config';

// The API checks targets against WEBHOOK_ALLOWED_HOSTS on every request; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

function refusal(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error('the delivery was accepted');
}

/**
 * verifyWebhook() (client/src/webhooks.mts) on real deliveries of the service's webhook worker to a
 * local receiver: accepted with the endpoint's secret and, across a rotation, with either secret;
 * a changed byte, an old timestamp and a missing signature refused, each with its reason.
 */
describe('client kit: verifyWebhook', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let receiver: Receiver;
  let worker: BackgroundWorker;
  let wakeOthers: (() => Promise<void>) | undefined;

  before(async function () {
    onlyDirect(this, 'runs a delivery worker and a webhook receiver in the test process, on the database of the in-process service');
    org = await newOrg();
    receiver = await new Receiver().start();
    wakeOthers = await restOtherEndpoints(harness().db, org.id);
    worker = await startBackgroundWorker({
      db: harness().db,
      connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
      settings: { ...webhookSettings(loadConfig()), allowedHosts: ['127.0.0.1'], retryBaseMs: 20, retryMaxMs: 200 },
      pollInterval: 100,
    });
  });
  after(async () => {
    await worker?.stop();
    await receiver?.stop();
    await wakeOthers?.();
  });

  const delivered = async (path: string, code: string): Promise<Received> => {
    let found: Received | undefined;
    await eventually(`the delivery of ${code}`, () => (found = receiver.accepted(path).find((r) => r.body.data.data.code === code)) !== undefined);
    return found!;
  };

  it('accepts real deliveries, across a secret rotation, and refuses a changed byte, an old timestamp and a missing signature', async () => {
    const endpoint = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url('/kit'), types: ['vendor.created'] }), 201).body;
    const first = endpoint.secret!;
    expectStatus(await org.api.post('/vendors', { code: 'V-HOOK-1', name: 'One' }), 201);
    const one = await delivered('/kit', 'V-HOOK-1');
    const event = verifyWebhook(one.text, one.headers, first);
    expect(event.type).to.equal('vendor.created');
    expect(event.data.data).to.deep.include({ code: 'V-HOOK-1' });
    expect(verifyWebhook(Buffer.from(one.text), new Headers(one.headers as Record<string, string>), [first]).data.cursor).to.equal(one.body.data.cursor);

    const rotated = expectStatus(await org.api.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`), 200).body.secret!;
    expectStatus(await org.api.post('/vendors', { code: 'V-HOOK-2', name: 'Two' }), 201);
    const two = await delivered('/kit', 'V-HOOK-2');
    // During the overlap a delivery verifies with the old secret, the new one, or both given.
    for (const secrets of [first, rotated, [first, rotated], ['whsec_' + Buffer.alloc(32, 7).toString('base64'), rotated]]) {
      expect(verifyWebhook(two.text, two.headers, secrets).data.data).to.deep.include({ code: 'V-HOOK-2' });
    }
    expect(refusal(() => verifyWebhook(one.text, one.headers, rotated)).reason).to.equal('signature');

    const changed = two.text.replace('V-HOOK-2', 'V-HOOK-3');
    const tampered = refusal(() => verifyWebhook(changed, two.headers, [first, rotated]));
    expect(tampered.reason).to.equal('signature');
    expect(tampered.message).to.match(/no signature of the delivery matches any of the 2 secrets/);

    const old = String(Number(two.headers['webhook-timestamp']) - 600);
    const stale = refusal(() => verifyWebhook(two.text, { ...two.headers, 'webhook-timestamp': old }, rotated));
    expect(stale.reason).to.equal('stale');
    expect(stale.message).to.match(/tolerance 300 s/);

    const { 'webhook-signature': _dropped, ...unsigned } = two.headers;
    const missing = refusal(() => verifyWebhook(two.text, unsigned, rotated));
    expect(missing.reason).to.equal('unsigned');
    expect(missing.message).to.match(/no webhook-signature header/);
  });
});
