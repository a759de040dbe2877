import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { harness } from './support/harness';
import { anonymous, ApiResponse, Client, expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';
import { setRateLimits } from '../src/admin/rate-limits';
import { createClient, rotateApiKey } from '../src/admin/provision';
import { ROOT } from '../src/paths';
import { call, startInstance } from './support/instance';

const FORM = 'application/x-www-form-urlencoded';
const form = (o: Record<string, string>) => new URLSearchParams(o).toString();

/** A token request sent from a given local address (127.0.0.x are all this machine). */
function tokenFrom(localAddress: string, body: string): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const url = new URL(harness().baseUrl + '/oauth2/token');
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: { 'Content-Type': FORM, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The admin CLI (compiled), against the service's database. */
function adminCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist', 'src', 'admin', 'cli.js'), ...args],
      { env: { ...process.env, DATABASE_URL: harness().databaseUrl } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as unknown as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** An access token of an OAuth client (client credentials grant). */
async function accessToken(client: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await anonymous().post('/oauth2/token', undefined, {
    raw: form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    contentType: FORM,
  });
  return expectStatus(res, 200).body.access_token;
}

describe('rate limits', function () {
  this.timeout(60_000);

  itDirect('every authenticated answer carries RateLimit-Policy and RateLimit (IETF draft syntax)', PRISM.invalidRequest('orderBy=nope'), async () => {
    const org = await newOrg();
    const first = expectStatus(await org.api.get('/tax-codes'), 200);
    const policy = first.headers.get('ratelimit-policy')!;
    const state = first.headers.get('ratelimit')!;
    const burst = process.env.RATE_LIMIT_BURST;
    const hourly = process.env.RATE_LIMIT_HOURLY;
    expect(policy).to.equal(`"org-burst";q=${burst};w=1, "org-hourly";q=${hourly};w=3600`);
    expect(state).to.match(/^"org-burst";r=\d+;t=\d+, "org-hourly";r=\d+;t=\d+$/);
    expect(state).to.contain(`"org-hourly";r=${Number(hourly) - 1};`);
    // Errors carry them too.
    const refused = await org.api.get('/tax-codes?orderBy=nope');
    expect(refused.status).to.equal(400);
    expect(refused.headers.get('ratelimit')).to.contain(`"org-hourly";r=${Number(hourly) - 2};`);
  });

  it('an organization over its own limits (admin org setting) gets 429 with Retry-After and a problem body; another organization does not', async () => {
    const org = await newOrg();
    const other = await newOrg();
    // Set before the organization's first request (limits are cached for 10 s per instance).
    await setRateLimits(harness().db, org.id, { burst: 1000, hourly: 5 });
    for (let i = 0; i < 5; i++) expectStatus(await org.api.get('/tax-codes'), 200);
    const limited = await org.api.get('/tax-codes');
    const p = problemOf(limited, 429);
    expect(p.type).to.equal('/problems/too-many-requests');
    expect(p.detail).to.match(/org-hourly/);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
    expect(limited.headers.get('ratelimit-policy')).to.contain('"org-hourly";q=5;w=3600');
    expect(limited.headers.get('ratelimit')).to.contain('"org-hourly";r=0;');
    // A second credential of the same organization shares its allowance.
    const { apiKey } = await rotateApiKey(harness().db, org.id);
    problemOf(await anonymous().get('/tax-codes', { headers: { Authorization: `Bearer ${apiKey}` } }), 429);
    expectStatus(await other.api.get('/tax-codes'), 200);
  });

  it('counts concurrent requests exactly: of 20 at once against 7 left, 7 pass (each told its own remainder) and 13 get 429', async () => {
    const org = await newOrg();
    await setRateLimits(harness().db, org.id, { burst: 1000, hourly: 7 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => org.api.get('/tax-codes')));
    const passed = answers.filter((a) => a.status === 200);
    expect(passed).to.have.length(7);
    expect(answers.filter((a) => a.status === 429)).to.have.length(13);
    const remainders = passed.map((a) => Number(/"org-hourly";r=(\d+);/.exec(a.headers.get('ratelimit')!)![1])).sort();
    expect(remainders).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
    // The shared counter holds at least the quota (requests refused once the key is blocked in
    // memory are not counted again: rate-limiter-flexible's inMemoryBlockOnConsumed).
    const row = await harness()
      .db('rate_limits')
      .where({ key: `rl:org:${org.id}:3600` })
      .first('points');
    expect(row.points).to.be.within(7, 20);
  });

  it('a request refused by the burst limit does not count against the hourly quota (a refused request has no effect)', async () => {
    const org = await newOrg();
    await setRateLimits(harness().db, org.id, { burst: 3, hourly: 100 });
    const hourlyLeft = (res: { headers: Headers }) => Number(/"org-hourly";r=(\d+);/.exec(res.headers.get('ratelimit')!)![1]);
    const nextSecond = () => new Promise((r) => setTimeout(r, 1100));
    let accepted = 0;
    let refused = 0;
    const count = (res: ApiResponse) => {
      if (res.status === 200) return void accepted++;
      expect(problemOf(res, 429).detail).to.match(/org-burst/);
      refused++;
    };
    // Ten at once, then ten one after another: each time, more than the burst allows.
    (await Promise.all(Array.from({ length: 10 }, () => org.api.get('/tax-codes')))).forEach(count);
    await nextSecond();
    for (let i = 0; i < 10; i++) count(await org.api.get('/tax-codes'));
    expect(refused).to.be.above(5);
    await nextSecond();
    const last = expectStatus(await org.api.get('/tax-codes'), 200);
    const counted = 100 - hourlyLeft(last) - 1;
    // Every accepted request counts against the hour; the refused ones give their place back (all
    // but one refused in the last 100 ms of a burst window, which is not given back: see
    // src/http/coalesced-consume.ts), where every refusal used to count.
    expect(counted).to.be.at.least(accepted);
    expect(counted - accepted, `${refused} refused, ${accepted} accepted, ${counted} counted`).to.be.below(refused / 2);
  });

  it('a request refused by the hourly quota does not count against the burst', async () => {
    const org = await newOrg();
    await setRateLimits(harness().db, org.id, { burst: 2, hourly: 1 });
    expectStatus(await org.api.get('/tax-codes'), 200);
    const refused = problemOf(await org.api.get('/tax-codes'), 429);
    expect(refused.detail).to.match(/org-hourly/);
    const row = await harness()
      .db('rate_limits')
      .where({ key: `rl:org:${org.id}:1` })
      .first('points', 'expire');
    // Only the accepted request is in the burst window (unless the second already began anew).
    expect(row.points).to.be.at.most(1);
  });

  it("an organization's raised limits reach its credentials: one credential may use the whole allowance", async () => {
    const org = await newOrg();
    const hourly = Number(process.env.RATE_LIMIT_HOURLY);
    await setRateLimits(harness().db, org.id, { burst: 3, hourly: hourly * 2 });
    const res = expectStatus(await org.api.get('/tax-codes'), 200);
    expect(res.headers.get('ratelimit-policy')).to.equal(`"org-burst";q=3;w=1, "org-hourly";q=${hourly * 2};w=3600`);
    expect(res.headers.get('ratelimit')).to.contain(`"org-hourly";r=${hourly * 2 - 1};`);
  });

  it('a key rotated with --rate-limit-burst 3 gets 429 after 3 requests in a second (credential-burst) while another credential of the same organization is still served', async () => {
    const org = await newOrg();
    await setRateLimits(harness().db, org.id, { burst: 1000, hourly: 100_000 });
    const cli = await adminCli('api-key', 'rotate', '--org', org.id, '--rate-limit-burst', '3');
    expect(cli.code, cli.stderr).to.equal(0);
    const rotated = JSON.parse(cli.stdout);
    expect(rotated.rateLimits).to.deep.equal({ burst: 3, hourly: 'organization' });
    const key = new Client(rotated.apiKey);
    const oauth = new Client(await accessToken(org));
    // Four at once: three fit the key's second, the fourth is refused. Should the four straddle
    // the start of a second (a loaded machine), the next try begins in a fresh one.
    let outcome = '';
    for (let attempt = 0; attempt < 5 && outcome !== '200,200,200,429'; attempt++) {
      await new Promise((r) => setTimeout(r, 1100));
      const answers = await Promise.all(Array.from({ length: 4 }, () => key.get('/tax-codes')));
      outcome = answers
        .map((a) => a.status)
        .sort()
        .join(',');
      const refused = answers.find((a) => a.status === 429);
      if (!refused) continue;
      expect(problemOf(refused, 429).detail).to.match(/credential-burst/);
      expect(refused.headers.get('ratelimit-policy')).to.contain('"credential-burst";q=3;w=1');
      // The organization's other credential, in the same second: served.
      const other = expectStatus(await oauth.get('/tax-codes'), 200);
      expect(other.headers.get('ratelimit-policy')).to.not.contain('credential-');
    }
    expect(outcome).to.equal('200,200,200,429');
    const policy = expectStatus(await oauth.get('/tax-codes'), 200).headers.get('ratelimit-policy');
    expect(policy).to.equal('"org-burst";q=1000;w=1, "org-hourly";q=100000;w=3600');
  });

  it("an OAuth client created with its own hourly limit is held to it, besides the organization's; the organization's API key is not", async () => {
    const org = await newOrg();
    const client = await createClient(harness().db, org.id, undefined, { hourly: 2 });
    expect(client.rateLimits).to.deep.equal({ burst: 'organization', hourly: 2 });
    const api = new Client(await accessToken({ clientId: client.clientId, clientSecret: client.clientSecret }));
    const first = expectStatus(await api.get('/tax-codes'), 200);
    const burst = process.env.RATE_LIMIT_BURST;
    const hourly = process.env.RATE_LIMIT_HOURLY;
    expect(first.headers.get('ratelimit-policy')).to.equal(`"org-burst";q=${burst};w=1, "org-hourly";q=${hourly};w=3600, "credential-hourly";q=2;w=3600`);
    expect(first.headers.get('ratelimit')).to.contain('"credential-hourly";r=1;');
    expectStatus(await api.get('/tax-codes'), 200);
    const refused = problemOf(await api.get('/tax-codes'), 429);
    expect(refused.detail).to.match(/credential-hourly/);
    expectStatus(await org.api.get('/tax-codes'), 200);
  });

  it('admin org setting --rate-limit-burst/--rate-limit-hourly stores the organization\'s limits ("default" clears them)', async () => {
    const org = await newOrg();
    const cli = adminCli;
    const set = await cli('org', 'setting', '--org', org.id, '--rate-limit-burst', '5', '--rate-limit-hourly', '700');
    expect(set.code, set.stderr).to.equal(0);
    expect(JSON.parse(set.stdout)).to.deep.equal({
      organization: { id: org.id },
      poCounter: 'off',
      rateLimits: { burst: 5, hourly: 700 },
      loopbackWebhooks: 'off',
    });
    const row = await harness().db('organizations').where({ id: org.id }).first('rate_limit_burst', 'rate_limit_hourly');
    expect(row).to.deep.equal({ rate_limit_burst: 5, rate_limit_hourly: 700 });
    const cleared = await cli('org', 'setting', '--org', org.id, '--rate-limit-hourly', 'default');
    expect(JSON.parse(cleared.stdout).rateLimits).to.deep.equal({ burst: 5, hourly: 'default' });
    const bad = await cli('org', 'setting', '--org', org.id, '--rate-limit-burst', '0');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/--rate-limit-burst must be a positive integer/);
  });

  it('RATE_LIMITS=off: an instance counts nothing and sends no RateLimit headers (a gateway in front enforces the limits)', async () => {
    const org = await newOrg();
    await setRateLimits(harness().db, org.id, { burst: 1000, hourly: 2 });
    const instance = await startInstance({ config: { rateLimits: false } });
    try {
      for (let i = 0; i < 4; i++) {
        const res = await call(instance.baseUrl, 'GET', '/tax-codes', { token: org.apiKey });
        expect(res.status).to.equal(200);
        expect(res.headers.get('ratelimit')).to.equal(null);
        expect(res.headers.get('ratelimit-policy')).to.equal(null);
      }
      expect(
        await harness()
          .db('rate_limits')
          .where({ key: `rl:org:${org.id}:3600` })
          .first(),
      ).to.equal(undefined);
    } finally {
      await instance.close();
    }
    // The service's own instance still counts: the third request of the hour is refused.
    expectStatus(await org.api.get('/tax-codes'), 200);
    expectStatus(await org.api.get('/tax-codes'), 200);
    problemOf(await org.api.get('/tax-codes'), 429);
  });

  it('keeps its counters in an unlogged table (no WAL flush per request; emptied after a crash)', async () => {
    const r = await harness().db.raw("SELECT relpersistence FROM pg_class WHERE oid = 'rate_limits'::regclass");
    expect(r.rows[0].relpersistence).to.equal('u');
  });

  describe('token endpoint', () => {
    let org: TestOrg;
    before(async () => {
      org = await newOrg();
    });

    itDirect(
      'allows 10 failed client authentications a minute per client id and address, then 429 (even with the right secret); another address is not locked out',
      'sends from two local addresses; through the proxy every request comes from the proxy',
      async function () {
        if (!harness().inProcess) return this.skip();
        const wrong = form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: 'cs_wrong' });
        for (let i = 0; i < 10; i++) {
          const res = await tokenFrom('127.0.0.1', wrong);
          expect(res.status).to.equal(401);
          expect(res.headers['ratelimit-policy']).to.equal('"token-failures";q=10;w=60');
          expect(res.headers['ratelimit']).to.match(new RegExp(`^"token-failures";r=${9 - i};t=\\d+$`));
        }
        const right = form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.clientSecret });
        const locked = await tokenFrom('127.0.0.1', right);
        expect(locked.status).to.equal(429);
        expect(Number(locked.headers['retry-after'])).to.be.within(1, 60);
        expect(locked.body.type).to.equal('/problems/too-many-requests');
        expect(locked.body.detail).to.match(/failed client authentications/);
        // The same client from elsewhere: unaffected.
        const elsewhere = await tokenFrom('127.0.0.2', right);
        expect(elsewhere.status).to.equal(200);
        expect(elsewhere.body.access_token).to.be.a('string');
        expect(elsewhere.headers['ratelimit']).to.equal('"token-failures";r=10;t=0');
      },
    );

    it('behind a proxy named by TRUST_PROXY counts per address the proxy reports (X-Forwarded-For); without it the header is ignored', async () => {
      // A client of its own: the other tests count failures of theirs from this machine's address.
      const own = await newOrg();
      const wrong = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: 'cs_behind_proxy' });
      const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
      // Distinct per run: the counters live in the shared database for a minute.
      const base = Date.now() % 200;
      const client = (n: number) => `198.51.100.${base + n}`;
      const viaProxy = (instance: { baseUrl: string }, body: string, forwardedFor: string) =>
        fetch(instance.baseUrl + '/oauth2/token', { method: 'POST', headers: { 'Content-Type': FORM, 'X-Forwarded-For': forwardedFor }, body });

      const behindProxy = await startInstance({ config: { trustProxy: ['loopback'] } });
      try {
        // The proxy (this machine) appends the address it saw: the client's is the last one before it.
        for (let i = 0; i < 10; i++) expect((await viaProxy(behindProxy, wrong, `203.0.113.9, ${client(1)}`)).status).to.equal(401);
        expect((await viaProxy(behindProxy, right, client(1))).status).to.equal(429);
        const other = await viaProxy(behindProxy, right, client(2));
        expect(other.status).to.equal(200);
        expect(other.headers.get('ratelimit')).to.equal('"token-failures";r=10;t=0');
      } finally {
        await behindProxy.close();
      }

      // Without TRUST_PROXY a client cannot escape the count by sending its own X-Forwarded-For.
      const direct = await startInstance({ config: { trustProxy: false } });
      try {
        const spoofed = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: 'cs_spoofed' });
        expect((await viaProxy(direct, spoofed, client(3))).headers.get('ratelimit')).to.match(/^"token-failures";r=9;/);
        expect((await viaProxy(direct, spoofed, client(4))).headers.get('ratelimit')).to.match(/^"token-failures";r=8;/);
      } finally {
        await direct.close();
      }
    });

    itDirect(
      'counts parallel guesses too: of 30 wrong secrets sent at once, 10 are checked (401) and 20 refused (429)',
      'sends from a local address of its own; through the proxy every request comes from the proxy',
      async function () {
        if (!harness().inProcess) return this.skip();
        const wrong = form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: 'cs_guess' });
        const answers = await Promise.all(Array.from({ length: 30 }, () => tokenFrom('127.0.0.3', wrong)));
        expect(answers.filter((a) => a.status === 401)).to.have.length(10);
        expect(answers.filter((a) => a.status === 429)).to.have.length(20);
        const right = form({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.clientSecret });
        expect((await tokenFrom('127.0.0.3', right)).status).to.equal(429);
      },
    );

    itDirect(
      'parallel logins succeed: 50 token requests with the right secret sent at once all get tokens, and leave nothing counted',
      'sends from a local address of its own; through the proxy every request comes from the proxy',
      async function () {
        if (!harness().inProcess) return this.skip();
        const own = await newOrg();
        const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
        const answers = await Promise.all(Array.from({ length: 50 }, () => tokenFrom('127.0.0.4', right)));
        expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(200));
        for (const a of answers) expect(a.body.access_token).to.be.a('string');
        // Successes count nothing: ten wrong secrets are still checked, the eleventh refused.
        const wrong = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: 'cs_after_logins' });
        for (let i = 0; i < 10; i++) expect((await tokenFrom('127.0.0.4', wrong)).status).to.equal(401);
        expect((await tokenFrom('127.0.0.4', wrong)).status).to.equal(429);
      },
    );

    itDirect(
      'a correct client is never locked out: six rounds in a row of 50 logins at once with the right secret all get tokens',
      'sends from a local address of its own; through the proxy every request comes from the proxy',
      async function () {
        if (!harness().inProcess) return this.skip();
        const own = await newOrg();
        const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
        // Rounds in a row: refusals given back while the next attempts were counted made a round
        // after the first see 11 of 10 positions taken although nothing had failed.
        for (let round = 1; round <= 6; round++) {
          const answers = await Promise.all(Array.from({ length: 50 }, () => tokenFrom('127.0.0.6', right)));
          expect(
            answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.headers['ratelimit']}`),
            `round ${round}`,
          ).to.deep.equal([]);
        }
        expect(await harness().db('rate_limits').where('key', 'like', `%token:${own.clientId}:%`).sum('points as points').first()).to.deep.equal({ points: 0 });
      },
    );

    itDirect(
      'right and wrong secrets at once: the wrong ones checked are at most 10, every right one not refused gets a token',
      'sends from a local address of its own; through the proxy every request comes from the proxy',
      async function () {
        if (!harness().inProcess) return this.skip();
        const own = await newOrg();
        const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
        const wrong = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: 'cs_mixed' });
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => tokenFrom('127.0.0.5', i % 2 ? wrong : right)));
        const wrongChecked = answers.filter((a, i) => i % 2 && a.status === 401).length;
        expect(wrongChecked).to.be.at.most(10);
        for (const [i, a] of answers.entries()) expect(a.status, `request ${i}`).to.be.oneOf(i % 2 ? [401, 429] : [200, 429]);
      },
    );
  });
});
