import { expect } from 'chai';
import { createClient, type ProcurementClient } from '../client/src/index.mjs';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { FaultProxy, type Seen } from './support/fault-proxy';
import { setRateLimits } from '../src/admin/rate-limits';

/**
 * The client kit's retries (client/src/retry.mts, client.mts) against the real service, through a
 * local proxy that loses answers or answers a gateway error: a write is retried only with an
 * Idempotency-Key, the same on every attempt; 429 waits out Retry-After; a 409 or a 422 is final.
 */
describe('client kit: retries', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let proxy: FaultProxy;
  let client: ProcurementClient;

  before(async () => {
    org = await newOrg();
    proxy = await new FaultProxy(harness().baseUrl).start();
  });
  beforeEach(() => {
    proxy.seen.length = 0;
    proxy.fault = () => undefined;
    client = createClient({ baseUrl: proxy.url, apiKey: org.apiKey, retry: { baseDelayMs: 10 } });
  });
  after(() => proxy.stop());

  const vendorsCoded = async (code: string) => expectStatus(await org.api.get(`/vendors?filter[code]=${code}`), 200).body.length;
  const writes = (path: string) => proxy.seen.filter((s: Seen) => s.method === 'POST' && s.url === path);

  it('retries a POST whose answer was lost with the same generated Idempotency-Key: one object exists, the replay answered', async () => {
    proxy.fault = (s, n) => (n === 1 && s.method === 'POST' ? 'drop-answer' : undefined);
    const { data, response } = await client.POST('/vendors', { body: { code: 'V-DROP', name: 'Dropped answer' } });
    expect(response.status).to.equal(201);
    expect(data?.code).to.equal('V-DROP');
    expect(response.headers.get('idempotent-replayed')).to.equal('true');
    const attempts = writes('/vendors');
    expect(attempts).to.have.length(2);
    expect(attempts[0].headers['idempotency-key']).to.match(/^[0-9a-f-]{36}$/);
    expect(attempts[1].headers['idempotency-key']).to.equal(attempts[0].headers['idempotency-key']);
    expect(await vendorsCoded('V-DROP')).to.equal(1);
  });

  it("keeps the caller's own Idempotency-Key on every attempt, and a new key per logical call", async () => {
    proxy.fault = (s, n) => (n === 1 ? 'drop-answer' : undefined);
    const first = await client.POST('/vendors', { body: { code: 'V-OWN', name: 'Own key' }, headers: { 'Idempotency-Key': 'erp-4711' } });
    expect(first.response.status).to.equal(201);
    expect(writes('/vendors').map((s) => s.headers['idempotency-key'])).to.deep.equal(['erp-4711', 'erp-4711']);
    await client.POST('/vendors', { body: { code: 'V-OWN-2', name: 'Another call' } });
    const keys = writes('/vendors').map((s) => s.headers['idempotency-key']);
    expect(keys[2]).to.not.equal('erp-4711');
  });

  it('never retries a write without an Idempotency-Key (idempotencyKeys: false): the lost answer is an error', async () => {
    const keyless = createClient({ baseUrl: proxy.url, apiKey: org.apiKey, idempotencyKeys: false, retry: { baseDelayMs: 10 } });
    proxy.fault = () => 'drop-answer';
    let failed: unknown;
    await keyless.POST('/vendors', { body: { code: 'V-NOKEY', name: 'No key' } }).catch((err) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    expect(writes('/vendors')).to.have.length(1);
    expect(writes('/vendors')[0].headers['idempotency-key']).to.equal(undefined);
    expect(await vendorsCoded('V-NOKEY')).to.equal(1);
  });

  it('retries a read after a lost answer and a 502, and answers the last status when attempts run out', async () => {
    proxy.fault = (_s, n) => (n === 1 ? 'drop-answer' : n === 2 ? { status: 502 } : undefined);
    expect((await client.GET('/vendors')).response.status).to.equal(200);
    expect(proxy.seen).to.have.length(3);
    proxy.seen.length = 0;
    proxy.fault = () => ({ status: 503, headers: { 'Retry-After': '0' } });
    const { error, response } = await client.GET('/vendors');
    expect(response.status).to.equal(503);
    expect(error).to.not.equal(undefined);
    expect(proxy.seen).to.have.length(4);
  });

  it('does not retry a 409 or a 422', async () => {
    expectStatus(await org.api.post('/vendors', { code: 'V-TAKEN', name: 'Taken' }), 201);
    const conflict = await client.POST('/vendors', { body: { code: 'V-TAKEN', name: 'Again' } });
    expect(conflict.response.status).to.equal(409);
    expect((conflict.error as { status?: number }).status).to.equal(409);
    expect(writes('/vendors')).to.have.length(1);
    const key = { 'Idempotency-Key': 'k-client-422' };
    expect((await client.POST('/vendors', { body: { code: 'V-422', name: 'A' }, headers: key })).response.status).to.equal(201);
    const mismatch = await client.POST('/vendors', { body: { code: 'V-422', name: 'B' }, headers: key });
    expect(mismatch.response.status).to.equal(422);
    expect(writes('/vendors')).to.have.length(3);
  });

  it("waits out the service's 429 Retry-After and then succeeds; a Retry-After past the bound is answered at once", async () => {
    const limited = await newOrg();
    // Set before the organization's first request (limits are cached per instance): one request a second.
    await setRateLimits(harness().db, limited.id, { burst: 1, hourly: 1000 });
    const answers: { status: number; retryAfter: string | null; at: number }[] = [];
    const observed = createClient({
      baseUrl: proxy.url,
      apiKey: limited.apiKey,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
        return res;
      },
    });
    // Another request takes the second's allowance first (again when a second ended between the two).
    for (let i = 0; i < 5 && !answers.some((a) => a.status === 429); i++) {
      answers.length = 0;
      await limited.api.get('/tax-codes');
      expect((await observed.GET('/tax-codes')).response.status).to.equal(200);
    }
    const k = answers.findIndex((a) => a.status === 429);
    expect(k, 'a 429 seen').to.be.at.least(0);
    const wait = Number(answers[k].retryAfter) * 1000;
    expect(wait).to.be.within(1000, 60_000);
    expect(answers[k + 1].status).to.equal(200);
    expect(answers[k + 1].at - answers[k].at, 'the retry waited the Retry-After').to.be.at.least(wait);

    proxy.seen.length = 0;
    proxy.fault = () => ({ status: 429, headers: { 'Retry-After': '3600' } });
    const { response } = await createClient({ baseUrl: proxy.url, apiKey: org.apiKey }).GET('/tax-codes');
    expect(response.status).to.equal(429);
    expect(proxy.seen).to.have.length(1);
  });
});
