import { expect } from 'chai';
import { createClient } from '../client/src/index.mjs';
import { harness } from './support/harness';
import { newOrg, TestOrg } from './support/client';

/**
 * The client kit with OAuth client credentials (client/src/oauth.mts) against the real token
 * endpoint: one token request however many calls start at once, and a new token before the old one
 * expires.
 */
describe('client kit: OAuth client credentials', function () {
  this.timeout(60_000);
  let org: TestOrg;
  before(async () => {
    org = await newOrg();
  });

  /** A fetch that counts token requests and may shorten the lifetime the service gave (expires_in). */
  function countingFetch(lifetimeSeconds?: number) {
    const tokens: string[] = [];
    const send = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const res = await fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith('/oauth2/token')) return res;
      const body = await res.json();
      tokens.push(body.access_token);
      if (lifetimeSeconds !== undefined) body.expires_in = lifetimeSeconds;
      return new Response(JSON.stringify(body), { status: res.status, headers: { 'Content-Type': 'application/json' } });
    };
    return { tokens, send };
  }

  it('fetches one token for calls started together, and uses it', async () => {
    const { tokens, send } = countingFetch();
    const client = createClient({ baseUrl: harness().baseUrl, clientId: org.clientId, clientSecret: org.clientSecret, fetch: send });
    const results = await Promise.all(Array.from({ length: 8 }, () => client.GET('/tax-codes')));
    expect(results.map((r) => r.response.status)).to.deep.equal(Array(8).fill(200));
    expect(tokens).to.have.length(1);
    await client.GET('/jobs');
    expect(tokens).to.have.length(1);
  });

  it('fetches a new token before the old one expires (at 90 % of its lifetime)', async () => {
    const { tokens, send } = countingFetch(1);
    const client = createClient({ baseUrl: harness().baseUrl, clientId: org.clientId, clientSecret: org.clientSecret, fetch: send });
    expect((await client.GET('/tax-codes')).response.status).to.equal(200);
    await new Promise((r) => setTimeout(r, 950));
    expect((await client.GET('/tax-codes')).response.status).to.equal(200);
    expect(tokens).to.have.length(2);
  });

  it('says why when the credentials are refused', async () => {
    const client = createClient({ baseUrl: harness().baseUrl, clientId: org.clientId, clientSecret: 'wrong' });
    let failed: Error | undefined;
    await client.GET('/tax-codes').catch((err: Error) => (failed = err));
    expect(failed?.message).to.match(/^POST \/oauth2\/token: 401/);
  });
});
