import { expect } from 'chai';
import { harness } from './support/harness';
import { newOrg } from './support/client';
import { eventually } from './support/webhook-receiver';
import { startCompiledServer } from './support/instance';
import type { Child } from './support/child';

const FORM = 'application/x-www-form-urlencoded';
const form = (o: Record<string, string>) => new URLSearchParams(o).toString();

/**
 * The token endpoint's guard with two instances on one database (behind a load balancer): the
 * failures of a client id and address are counted once for both, and the positions one instance
 * holds for checks in flight never make the other refuse a correct client. Each instance is the
 * compiled server in a process of its own: what one process knows of its own attempts, the other
 * does not (two instances in this process share the guard's module state, and this process's
 * requests and answers run one after the other).
 */
describe('token guard across two instances', function () {
  this.timeout(120_000);
  let children: Child[] = [];
  let a = '';
  let b = '';
  const on = (i: number) => (i % 2 ? b : a);

  before(async () => {
    // NODE_ENV=test: each instance validates its answers against the contract (500 if one breaks it).
    const env = { BACKGROUND_WORKER: 'off', NODE_ENV: 'test' };
    const started = await Promise.all([startCompiledServer(env), startCompiledServer(env)]);
    children = started.map((s) => s.child);
    [a, b] = started.map((s) => s.base);
  });
  after(async () => Promise.all(children.map((c) => c.stop())));

  /** POST /oauth2/token on an instance (call() sends JSON; the token endpoint takes a form). */
  async function post(base: string, body: string) {
    const res = await fetch(base + '/oauth2/token', {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, ratelimit: res.headers.get('ratelimit'), retryAfter: res.headers.get('retry-after'), body: await res.json() };
  }

  it('a correct client is never refused: three rounds in a row of 50 logins at once, split between the instances, all get tokens', async () => {
    const own = await newOrg();
    const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
    for (let round = 1; round <= 3; round++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(on(i), right)));
      expect(
        answers.filter((x) => x.status !== 200).map((x) => `${x.status} ${x.ratelimit} ${JSON.stringify(x.body)}`),
        `round ${round}`,
      ).to.deep.equal([]);
    }
    // Successes count nothing, on either instance.
    const counted = await harness().db('rate_limits').where('key', 'like', `%token%:${own.clientId}:%`).sum('points as points').first();
    expect(Number(counted?.points ?? 0)).to.equal(0);
  });

  /**
   * Runs `meanwhile` while ten checks of the right secret on A hold every position of the client's
   * count (the client table is locked, so their look-ups wait); then A's answers and its result.
   */
  async function whileAHoldsEveryPosition<T>(clientId: string, right: string, meanwhile: (positions: () => Promise<{ version: string }>) => Promise<T>) {
    const positions = () =>
      harness()
        .db('rate_limits')
        .where({ key: `rl:token:${clientId}:127.0.0.1` })
        .first(harness().db.raw('xmin::text AS version'), 'points');
    const lock = await harness().db.transaction();
    const started = (async () => {
      await lock.raw('LOCK TABLE oauth_clients IN ACCESS EXCLUSIVE MODE');
      const onA = Promise.all(Array.from({ length: 10 }, () => post(a, right)));
      await eventually('A holding every position', async () => (await positions())?.points === 10);
      return { onA, result: await meanwhile(positions) };
    })().finally(() => lock.rollback());
    const { onA, result } = await started;
    return { onA: await onA, result };
  }

  it("a correct client on B waits for A's checks in flight holding every position, then gets its token", async () => {
    const own = await newOrg();
    const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
    const { onA, result: onB } = await whileAHoldsEveryPosition(own.clientId, right, async (positions) => {
      // B's attempt is counted (a new version of the count's row) while A holds every position.
      const held = (await positions()).version;
      const answer = post(b, right);
      await eventually("B's attempt counted", async () => (await positions()).version !== held);
      return { answer };
    });
    const answers = [...onA, await onB.answer];
    expect(answers.filter((x) => x.status !== 200).map((x) => `${x.status} ${x.ratelimit} ${JSON.stringify(x.body)}`)).to.deep.equal([]);
  });

  it('checks in flight holding every position longer than B waits: 503 with Retry-After, not 429', async () => {
    const own = await newOrg();
    const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
    const { onA, result: onB } = await whileAHoldsEveryPosition(own.clientId, right, () => post(b, right));
    expect(onB.status, JSON.stringify(onB.body)).to.equal(503);
    expect(Number(onB.retryAfter)).to.be.at.least(1);
    expect(onB.body.detail).to.match(/being checked/);
    expect(onA.map((x) => x.status)).to.deep.equal(Array(10).fill(200));
  });

  it('still guards: wrong secrets on A count on B; after 10 failures both refuse with 429, even the right secret', async () => {
    const own = await newOrg();
    const wrong = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: 'cs_wrong_across' });
    const right = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret });
    for (let i = 0; i < 5; i++) expect((await post(a, wrong)).status).to.equal(401);
    for (let i = 0; i < 5; i++) expect((await post(b, wrong)).status).to.equal(401);
    for (const instance of [a, b]) {
      for (const body of [wrong, right]) {
        const refused = await post(instance, body);
        expect(refused.status).to.equal(429);
        expect(Number(refused.retryAfter)).to.be.within(1, 60);
        expect(refused.body.detail).to.match(/failed client authentications/);
      }
    }
  });

  it('parallel guesses on both instances: of 30 wrong secrets at once, 10 are checked (401), 20 refused (429)', async () => {
    const own = await newOrg();
    const wrong = form({ grant_type: 'client_credentials', client_id: own.clientId, client_secret: 'cs_guess_across' });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => post(on(i), wrong)));
    expect(answers.map((x) => x.status).sort()).to.deep.equal([...Array(10).fill(401), ...Array(20).fill(429)]);
  });
});
