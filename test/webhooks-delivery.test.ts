import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import type { Child } from './support/child';
import { call, startCompiledServer } from './support/instance';
import { onlyDirect } from './support/proxy';
import { eventually, Receiver, restOtherEndpoints } from './support/webhook-receiver';
import { writeTransaction } from '../src/feed/append';
import { decodeCursor, encodeCursor } from '../src/feed/cursor';
import { deliverEndpoint } from '../src/background/deliver';
import { Sender, type SendResult } from '../src/webhooks/send';
import { startBackgroundWorker, BackgroundWorker } from '../src/background/worker';
import { webhookSettings, type WebhookSettings } from '../src/webhooks/settings';
import { wake } from '../src/resources/webhook-endpoints/queries';
import { createLogger } from '../src/ops/log';
import { loadConfig } from '../src/config';
import { captureLog } from './support/log-capture';

// The API checks targets against WEBHOOK_ALLOWED_HOSTS on every request; the receiver is local.
process.env.WEBHOOK_ALLOWED_HOSTS ||= '127.0.0.1';

/** Fast retries and a short timeout, so the suite does not wait for production delays. */
const FAST: Partial<WebhookSettings> = {
  allowedHosts: ['127.0.0.1'],
  timeoutMs: 400,
  retryBaseMs: 20,
  retryMaxMs: 200,
  giveUpAfterMs: 3_600_000,
  concurrency: 3,
};

const workers: BackgroundWorker[] = [];
async function startWorker(settings: Partial<WebhookSettings> = {}, logger?: ReturnType<typeof createLogger>): Promise<BackgroundWorker> {
  const w = await startBackgroundWorker({
    db: harness().db,
    connectionString: process.env.DATABASE_DIRECT_URL || harness().databaseUrl,
    settings: { ...webhookSettings(loadConfig()), ...FAST, ...settings },
    pollInterval: 100,
    logger,
  });
  workers.push(w);
  return w;
}
async function stopWorkers(): Promise<void> {
  for (const w of workers.splice(0)) await w.stop();
}

/**
 * eventually(), waiting up to 45 s, and on a timeout saying what the receiver saw, where the
 * endpoint stands and its queued job: these waits timed out now and then only in the PgBouncer
 * pass of .ci/run, never alone.
 */
async function eventuallyExplained(
  what: string,
  done: () => boolean | Promise<boolean>,
  receiver: Receiver,
  endpointId: string,
  path: string,
  ids: string[],
): Promise<void> {
  try {
    await eventually(what, done, 45_000);
  } catch (err) {
    const seen = receiver.requests.filter((r) => r.path === path).map((r) => `${r.id}:${r.answered ?? 'held'}`);
    const state = await harness()
      .db('webhook_endpoints')
      .where({ id: endpointId })
      .first(
        'delivered_position',
        'head_attempts',
        'next_attempt_at',
        'lease_owner',
        'lease_expires_at',
        'enabled',
        'failing_since',
        'last_error',
        'disabled_at',
      );
    const jobs = await harness()
      .db.raw('SELECT key, run_at, attempts, locked_at, last_error FROM graphile_worker.jobs WHERE key = ?', [`webhook:${endpointId}`])
      .catch((e: Error) => ({ rows: e.message }));
    throw new Error(
      `${(err as Error).message}; expected ${ids.join(', ')}; received ${seen.join(', ')}; endpoint ${JSON.stringify(state)}; jobs ${JSON.stringify(jobs.rows)}`,
      { cause: err },
    );
  }
}

/** Feed entries written the way every API write writes them (tests do not depend on which API writes emit yet). */
async function emit(org: TestOrg, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await writeTransaction(harness().db, org.id, async (_trx, changes) => {
      changes.add({
        type: 'vendor.updated',
        resource: 'vendor',
        id: '5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f',
        data: { id: '5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f', n: i },
      });
    });
  }
}

/** The entries the endpoint should receive: the organization's feed after `after`, of its types. */
async function feedAfter(org: TestOrg, after: number, types?: string[]): Promise<{ position: number; type: string }[]> {
  const q = harness().db('change_feed').where('organization_id', org.id).andWhere('position', '>', after).orderBy('position').select('position', 'type');
  if (types) q.whereIn('type', types);
  return (await q).map((r: any) => ({ position: Number(r.position), type: r.type }));
}

async function createEndpoint(org: TestOrg, receiver: Receiver, path: string, extra: object = {}) {
  const head = await harness().db('feed_heads').where('organization_id', org.id).first('position');
  const created = expectStatus(await org.api.post('/webhook-endpoints', { url: receiver.url(path), ...extra }), 201).body;
  receiver.secrets.set(path, [created.secret]);
  return { endpoint: created, start: Number(head?.position ?? 0) };
}

const positions = (org: TestOrg, received: { body: any }[]) => received.map((r) => decodeCursor(org.id, r.body.data.cursor));

describe('webhook deliveries', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  // A worker here serves every endpoint of the database: the endpoints of other files rest while
  // this file runs (seen through PgBouncer on a loaded machine: 10 deliveries not made in 45 s).
  let wakeOthers: (() => Promise<void>) | undefined;

  before(async function () {
    onlyDirect(this, 'runs a delivery worker and a webhook receiver in the test process, on the database of the in-process service');
    receiver = await new Receiver().start();
    wakeOthers = await restOtherEndpoints(harness().db);
  });
  afterEach(stopWorkers);
  after(async () => {
    await stopWorkers();
    await receiver?.stop();
    await wakeOthers?.();
  });

  it('delivers every change once, in feed order, signed, through 5xx, a timeout and a 429 with Retry-After', async () => {
    const org = await newOrg();
    const { endpoint, start } = await createEndpoint(org, receiver, '/order');
    await emit(org, 3);
    // API writes too (vendor writes emit vendor.* entries once the feed covers them).
    const vendor = expectStatus(await org.api.post('/vendors', { code: 'V-HOOK', name: 'Hook Supply' }), 201).body;
    expectStatus(await org.api.patch(`/vendors/${vendor.id}`, { name: 'Hook Supply Co' }), 200);
    await emit(org, 4);
    const expected = await feedAfter(org, start);
    const ids = expected.map((e) => `msg_${endpoint.id.replace(/-/g, '')}_${e.position}`);
    receiver.reply = (r, attempt) => {
      if (r.id === ids[0] && attempt <= 2) return { status: 503 };
      if (r.id === ids[1] && attempt === 1) return 'hold';
      if (r.id === ids[2] && attempt === 1) return { status: 429, headers: { 'Retry-After': '0' } };
      return { status: 200 };
    };
    await startWorker();
    await eventuallyExplained('every entry accepted', () => receiver.accepted('/order').length >= expected.length, receiver, endpoint.id, '/order', ids);

    const accepted = receiver.accepted('/order');
    expect(positions(org, accepted)).to.deep.equal(expected.map((e) => e.position));
    expect(accepted.map((r) => r.id)).to.deep.equal(ids);
    expect(accepted.map((r) => r.body.type)).to.deep.equal(expected.map((e) => e.type));
    const all = receiver.requests.filter((r) => r.path === '/order');
    expect(
      all.every((r) => r.verifiedBy.length === 1),
      'every request verifies with the secret',
    ).to.equal(true);
    expect(all.length).to.equal(expected.length + 4);
    const first = accepted[0].body;
    expect(first).to.have.keys('type', 'timestamp', 'data');
    expect(first.data).to.include.keys('cursor', 'type', 'resource', 'id', 'occurredAt', 'data');
    expect(first.timestamp).to.equal(first.data.occurredAt);

    // The receiver answers before the worker records the attempt: wait for the last record.
    const deliveries = async () => expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}/deliveries?limit=1000`), 200).body as any[];
    await eventually('every success recorded', async () => (await deliveries()).filter((d) => d.status === 'succeeded').length === expected.length);
    const log = await deliveries();
    const forFirst = log.filter((d) => d.messageId === ids[0]).reverse();
    expect(forFirst.map((d) => [d.attempt, d.status, d.responseStatus])).to.deep.equal([
      [1, 'retrying', 503],
      [2, 'retrying', 503],
      [3, 'succeeded', 200],
    ]);
    expect(forFirst[0].nextAttemptAt).to.be.a('string');
    expect(forFirst[0].error).to.match(/503/);
    const timedOut = log.find((d) => d.messageId === ids[1] && d.attempt === 1);
    expect(timedOut).to.include({ status: 'retrying', responseStatus: null });
    expect(timedOut.error).to.match(/No answer within 400 ms/);
    // attemptedAt is when the request was sent (the contract), not when the attempt ended: the
    // receiver got the held request before the sender gave up on it 400 ms later.
    const held = all.find((r) => r.id === ids[1])!;
    expect(Date.parse(timedOut.attemptedAt)).to.be.at.most(held.receivedAt);
    expect(Date.parse(timedOut.attemptedAt) + timedOut.durationMs).to.be.at.least(held.receivedAt);
    expect(log.find((d) => d.messageId === ids[2] && d.attempt === 1)).to.include({ status: 'retrying', responseStatus: 429 });
    expect(log.filter((d) => d.status === 'succeeded')).to.have.length(expected.length);
    expect(log[0].cursor).to.equal(encodeCursor(org.id, expected[expected.length - 1].position));
    const status = expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}`), 200).body;
    expect(status).to.include({ status: 'active', failingSince: null, nextAttemptAt: null, lastError: null });
    expect(status.lastSuccessAt).to.be.a('string');
  });

  it('loses nothing when the worker stops mid-queue and another one starts', async () => {
    const org = await newOrg();
    const { endpoint, start } = await createEndpoint(org, receiver, '/restart');
    await emit(org, 40);
    const expected = await feedAfter(org, start);
    let stopped: Promise<void> | undefined;
    // The reply is in place before the worker starts: it delivers while startWorker() still runs
    // its first sweep (through PgBouncer, slower than the worker's direct connection), so a reply
    // set after it looked at the 11th request too late, and never stopped the worker.
    const first: { worker?: Promise<BackgroundWorker> } = {};
    receiver.reply = (r) => {
      // Stop the first worker while the queue is still long (it finishes the attempt in flight).
      if (r.path === '/restart' && receiver.accepted('/restart').length >= 10) stopped ??= first.worker!.then((w) => w.stop());
      return { status: 200 };
    };
    first.worker = startWorker();
    await first.worker;
    await eventually('the first worker to stop', () => stopped !== undefined);
    await stopped;
    expect(receiver.accepted('/restart').length).to.be.lessThan(expected.length);
    // The run that ended early queued the endpoint again, for a worker of another instance.
    const queued = await harness().db.raw('SELECT locked_at FROM graphile_worker.jobs WHERE key = ?', [`webhook:${endpoint.id}`]);
    expect(queued.rows, 'the endpoint queued for another worker').to.deep.equal([{ locked_at: null }]);
    await startWorker();
    await eventually('every entry accepted', () => receiver.accepted('/restart').length >= expected.length);
    expect(positions(org, receiver.accepted('/restart'))).to.deep.equal(expected.map((e) => e.position));
  });

  it('two instances on one database send each message once, in order per endpoint; a failing endpoint delays no other', async () => {
    const a = await newOrg();
    const b = await newOrg();
    const paths = ['/two-a1', '/two-a2', '/two-b1'];
    const eps = [await createEndpoint(a, receiver, paths[0]), await createEndpoint(a, receiver, paths[1]), await createEndpoint(b, receiver, paths[2])];
    const broken = await createEndpoint(a, receiver, '/two-broken');
    receiver.reply = (r) => (r.path === '/two-broken' ? { status: 500 } : { status: 200 });
    await startWorker();
    await startWorker();
    await Promise.all([emit(a, 25), emit(b, 25)]);
    const expected = [await feedAfter(a, eps[0].start), await feedAfter(a, eps[1].start), await feedAfter(b, eps[2].start)];
    try {
      await eventually('every entry accepted', () => paths.every((p, i) => receiver.accepted(p).length >= expected[i].length));
    } catch (err) {
      const states = await Promise.all(
        eps.map(async ({ endpoint }, i) => {
          const state = await harness()
            .db('webhook_endpoints')
            .where({ id: endpoint.id })
            .first('delivered_position', 'head_attempts', 'next_attempt_at', 'lease_owner', 'lease_expires_at', 'enabled', 'generation');
          const jobs = await harness().db.raw(
            `SELECT key, run_at, attempts, max_attempts, locked_at, locked_by, last_error FROM graphile_worker.jobs WHERE payload->>'endpointId' = ?`,
            [endpoint.id],
          );
          return `${paths[i]}: accepted ${receiver.accepted(paths[i]).length}/${expected[i].length}, last expected ${expected[i].at(-1)?.position}; endpoint ${JSON.stringify(state)}; jobs ${JSON.stringify(jobs.rows)}`;
        }),
      );
      throw new Error(`${(err as Error).message} (now ${new Date().toISOString()}):\n${states.join('\n')}`, { cause: err });
    }
    paths.forEach((p, i) => {
      const got = receiver.requests.filter((r) => r.path === p);
      expect(
        got.map((r) => r.id),
        p,
      ).to.deep.equal([...new Set(got.map((r) => r.id))]);
      expect(positions(i < 2 ? a : b, got), p).to.deep.equal(expected[i].map((e) => e.position));
    });
    const stuck = expectStatus(await a.api.get(`/webhook-endpoints/${broken.endpoint.id}`), 200).body;
    expect(stuck.status).to.equal('retrying');
    expect(stuck.lastError).to.match(/500/);
    expectStatus(await a.api.delete(`/webhook-endpoints/${broken.endpoint.id}`), 200);
  });

  it("a doorbell rung while a worker takes the endpoint's queued job is not lost (graphile/worker#580)", async () => {
    // graphile-worker's schema, installed by a worker's start; no worker runs during the race.
    await startWorker();
    await stopWorkers();
    const org = await newOrg();
    const { endpoint } = await createEndpoint(org, receiver, '/taken');
    const db = harness().db;
    const key = `webhook:${endpoint.id}`;
    await wake(db, endpoint.id, null, 'preserve_run_at');
    const queued = (await db.raw('SELECT id FROM graphile_worker.jobs WHERE key = ?', [key])).rows;
    expect(queued).to.have.length(1);
    const taken = queued[0].id;
    // A worker taking the job holds its row; the doorbell's add_job waits for it in its upsert...
    const worker = await db.transaction();
    try {
      await worker.raw('SELECT 1 FROM graphile_worker._private_jobs WHERE id = ? FOR UPDATE', [taken]);
      const ringing = wake(db, endpoint.id, null, 'preserve_run_at');
      await eventually(
        'the doorbell to wait for the job the worker takes',
        async () => (await db.raw(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT webhook_wake%'`)).rows.length > 0,
      );
      // ... and finds it taken (what graphile-worker's getJob writes) once the worker commits.
      await worker.raw(`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'test-worker' WHERE id = ?`, [taken]);
      await worker.commit();
      await ringing;
    } finally {
      if (!worker.isCompleted()) await worker.rollback();
    }
    // The taken job may have read the feed before the doorbell's transaction committed: a job must
    // be queued behind it (add_job dropped it: the entries waited for the minute's sweep).
    const jobs = (await db.raw('SELECT id, locked_at FROM graphile_worker.jobs WHERE key = ?', [key])).rows;
    await db.raw('DELETE FROM graphile_worker._private_jobs WHERE id = ?', [taken]);
    expect(jobs, 'the job queued by the doorbell').to.have.length(1);
    expect(jobs[0].id).to.not.equal(taken);
    expect(jobs[0].locked_at).to.equal(null);
  });

  it('a final 4xx is logged and skipped; after the retry period the endpoint is disabled, notified, and resumes when enabled', async () => {
    const org = await newOrg();
    const { endpoint, start } = await createEndpoint(org, receiver, '/giveup', { types: ['vendor.updated'] });
    await emit(org, 3);
    const expected = await feedAfter(org, start, ['vendor.updated']);
    const ids = expected.map((e) => `msg_${endpoint.id.replace(/-/g, '')}_${e.position}`);
    let healthy = false;
    receiver.reply = (r) => (r.id === ids[0] ? { status: 422 } : healthy ? { status: 200 } : { status: 502 });
    await startWorker({ giveUpAfterMs: 150 });
    await eventuallyExplained(
      'the endpoint to be disabled',
      async () => expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}`), 200).body.status === 'failing',
      receiver,
      endpoint.id,
      '/giveup',
      ids,
    );
    const failing = expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}`), 200).body;
    expect(failing).to.include({ enabled: false, status: 'failing' });
    expect(failing.disabledReason).to.match(/502/);
    const log = expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}/deliveries?limit=1000`), 200).body as any[];
    expect(log.find((d) => d.messageId === ids[0])).to.include({ status: 'failed', responseStatus: 422, attempt: 1 });
    expect(log[0]).to.include({ messageId: ids[1], status: 'failed', responseStatus: 502 });
    expect(
      log
        .filter((d) => d.messageId === ids[1])
        .slice(1)
        .every((d) => d.status === 'retrying'),
    ).to.equal(true);
    const notes = expectStatus(await org.api.get('/notifications'), 200).body as any[];
    const note = notes.find((n) => n.payload.webhookEndpoint?.id === endpoint.id);
    expect(note).to.include({ type: 'integration_issue', recipientId: org.userId });

    healthy = true;
    expectStatus(await org.api.patch(`/webhook-endpoints/${endpoint.id}`, { enabled: true }), 200);
    await eventually('the rest to be accepted', () => receiver.accepted('/giveup').length >= expected.length - 1);
    expect(receiver.accepted('/giveup').map((r) => r.id)).to.deep.equal(ids.slice(1));
  });

  it('signs with the previous and the new secret during a rotation overlap, then with the new one only', async () => {
    const org = await newOrg();
    const { endpoint } = await createEndpoint(org, receiver, '/rotate', { types: ['vendor.updated'] });
    const old = receiver.secrets.get('/rotate')![0];
    const rotated = expectStatus(await org.api.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`), 200).body;
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(old);
    expect(rotated.previousSecretExpiresAt).to.be.a('string');
    receiver.secrets.set('/rotate', [old, rotated.secret]);
    receiver.reply = () => ({ status: 200 });
    await startWorker();
    await emit(org, 1);
    await eventually('the overlap delivery', () => receiver.accepted('/rotate').length === 1);
    const during = receiver.accepted('/rotate')[0];
    expect(during.verifiedBy).to.deep.equal([0, 1]);
    expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2);
    // The receiver answers before the attempt is recorded; a rotation (a new generation) before that
    // would stop the run without moving the endpoint on, and the entry would be sent again.
    const sent = decodeCursor(org.id, during.body.data.cursor);
    await eventually(
      'the overlap delivery recorded',
      async () => Number((await harness().db('webhook_endpoints').where({ id: endpoint.id }).first('delivered_position')).delivered_position) === sent,
    );

    const again = expectStatus(await org.api.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`), 200).body;
    receiver.secrets.set('/rotate', [old, rotated.secret, again.secret]);
    // The overlap (WEBHOOK_SECRET_OVERLAP_HOURS, read once at start) is over: as if the hours had passed.
    await harness()
      .db('webhook_endpoints')
      .where({ id: endpoint.id })
      .update({ previous_secret_expires_at: harness().db.raw("now() - interval '1 second'") });
    await emit(org, 1);
    await eventually('the delivery after the overlap', () => receiver.accepted('/rotate').length === 2);
    expect(receiver.accepted('/rotate')[1].verifiedBy).to.deep.equal([2]);
  });

  it("logs a lost database connection of the worker on the service's logger (component webhooks), and stops cleanly", async () => {
    const log = captureLog();
    const worker = await startWorker({}, createLogger('info', log.stream));
    // Its connections (graphile-worker's LISTEN among them) end under it, as when PostgreSQL restarts.
    const ended = await harness().db.raw(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'procurement-api-background' AND pid <> pg_backend_pid()`,
    );
    expect(ended.rows.length).to.be.greaterThan(0);
    await eventually('the loss logged', () => log.parsed().some((l) => l.component === 'background' && l.level === 50 && l.msg === 'database connection lost'));
    const line = log.parsed().find((l) => l.msg === 'database connection lost')!;
    expect(line.err?.message).to.be.a('string').and.not.equal('');
    await worker.stop();
  });

  it('replays every entry after a cursor, in order', async () => {
    const org = await newOrg();
    const { endpoint, start } = await createEndpoint(org, receiver, '/replay', { types: ['vendor.updated'] });
    receiver.reply = () => ({ status: 200 });
    await startWorker();
    await emit(org, 6);
    const expected = await feedAfter(org, start, ['vendor.updated']);
    await eventually('the first pass', () => receiver.accepted('/replay').length === 6);
    const after = receiver.accepted('/replay')[2].body.data.cursor;
    expect(expectStatus(await org.api.post(`/webhook-endpoints/${endpoint.id}/replay`, { after }), 202).body).to.deep.equal({ endpointId: endpoint.id, after });
    await eventually('the replay', () => receiver.accepted('/replay').length === 9);
    expect(positions(org, receiver.accepted('/replay'))).to.deep.equal([...expected, ...expected.slice(3)].map((e) => e.position));
  });

  it('checks the address it connects to: a name resolving to 127.0.0.1 is refused when it is not allowed', async () => {
    const org = await newOrg();
    const endpoint = expectStatus(
      await org.api.post('/webhook-endpoints', { url: `https://127.0.0.1:${receiver.port}/ssrf`, types: ['vendor.updated'] }),
      201,
    ).body;
    // The API refuses localhost (not in this run's WEBHOOK_ALLOWED_HOSTS): an endpoint that named it
    // when the setting allowed it, stored directly.
    await harness()
      .db('webhook_endpoints')
      .where({ id: endpoint.id })
      .update({ url: `https://localhost:${receiver.port}/ssrf` });
    // This worker allows 127.0.0.1 by address but not the name localhost: the lookup refuses it.
    await startWorker({ allowedHosts: ['127.0.0.1'] });
    await emit(org, 1);
    await eventually('a refused attempt', async () => ((await org.api.get(`/webhook-endpoints/${endpoint.id}/deliveries`)).body as any[]).length > 0);
    const [attempt] = expectStatus(await org.api.get(`/webhook-endpoints/${endpoint.id}/deliveries`), 200).body as any[];
    expect(attempt).to.include({ status: 'retrying', responseStatus: null });
    expect(attempt.error).to.match(/localhost resolves to (127\.0\.0\.1|::1)/);
    expect(receiver.requests.filter((r) => r.path === '/ssrf')).to.have.length(0);
    expectStatus(await org.api.delete(`/webhook-endpoints/${endpoint.id}`), 200);
  });

  it('BACKGROUND_WORKER=off: the instance serves webhook endpoints and queues deliveries but sends none; an instance with on sends them', async function () {
    this.timeout(180_000);
    // graphile-worker's schema (the queue) exists once any worker has started on the database.
    await (await startWorker()).stop();
    const org = await newOrg();
    const servers: { child: Child; base: string }[] = [];
    try {
      const off = await startCompiledServer({ LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', BACKGROUND_WORKER: 'off' });
      servers.push(off);
      const head = await harness().db('feed_heads').where('organization_id', org.id).first('position');
      const start = Number(head?.position ?? 0);
      const created = await call(off.base, 'POST', '/webhook-endpoints', { token: org.apiKey, body: { url: receiver.url('/switch') } });
      expect(created.status, created.text).to.equal(201);
      const endpoint = created.body;
      receiver.secrets.set('/switch', [endpoint.secret]);
      receiver.reply = () => ({ status: 200 });
      expect((await call(off.base, 'POST', '/vendors', { token: org.apiKey, body: { code: 'V-SWITCH', name: 'Switch Supply' } })).status).to.equal(201);
      const expected = await feedAfter(org, start);
      expect(expected.length).to.be.greaterThan(0);
      // The write queued its delivery (the doorbell job, in the write's own transaction) ...
      const queued = async () =>
        (await harness().db.raw('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = ?', [`webhook:${endpoint.id}`])).rows[0].n as number;
      expect(await queued()).to.equal(1);
      // ... and nothing sends it: no worker runs on this instance (NOTIFY would wake one at once).
      await new Promise((r) => setTimeout(r, 3000));
      expect(receiver.requests.filter((r) => r.path === '/switch')).to.have.length(0);
      expect(await queued()).to.equal(1);
      const deliveries = await call(off.base, 'GET', `/webhook-endpoints/${endpoint.id}/deliveries`, { token: org.apiKey });
      expect(deliveries.status).to.equal(200);
      expect(deliveries.body).to.deep.equal([]);
      const row = await harness().db('webhook_endpoints').where({ id: endpoint.id }).first('delivered_position');
      expect(Number(row.delivered_position)).to.equal(start);
      expect(off.child.output(), 'the start lines say so').to.contain('no worker here (BACKGROUND_WORKER=off)');

      // An instance with the worker on sends what the other one queued, in feed order.
      servers.push(await startCompiledServer({ LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', BACKGROUND_WORKER: 'on' }));
      await eventually('every entry accepted', () => receiver.accepted('/switch').length >= expected.length, 60_000);
      expect(positions(org, receiver.accepted('/switch'))).to.deep.equal(expected.map((e) => e.position));
    } finally {
      for (const server of servers) await server.child.stop();
    }
  });

  it('a run whose endpoint is deleted mid-delivery stops without an error and logs nothing (no foreign-key violation)', async () => {
    const org = await newOrg();
    const { endpoint } = await createEndpoint(org, receiver, '/vanish', { types: ['vendor.updated'] });
    await emit(org, 1);
    // The endpoint is deleted while the attempt is in flight, by a transaction that commits only
    // once the run's bookkeeping statement waits for the row it holds.
    const deleter = await harness().db.transaction();
    let sent = 0;
    const sender = {
      send: async (): Promise<SendResult> => {
        sent++;
        await deleter('webhook_endpoints').where({ id: endpoint.id }).delete();
        return { outcome: 'succeeded', status: 200, durationMs: 1, error: null };
      },
    } as unknown as Sender;
    const delivering = deliverEndpoint(
      { db: harness().db, sender, settings: { ...webhookSettings(loadConfig()), ...FAST }, workerId: 'vanishing-endpoint-test', stopping: () => false },
      endpoint.id,
    );
    const outcome = delivering.then(
      () => 'resolved',
      (err: Error) => `rejected: ${err.message}`,
    );
    try {
      await eventually('the bookkeeping to wait for the endpoint row', async () => {
        const { rows } = await harness().db.raw(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO webhook_deliveries%'`,
        );
        return rows[0].n > 0;
      });
    } finally {
      await deleter.commit();
    }
    expect(await outcome).to.equal('resolved');
    expect(sent).to.equal(1);
    const logged = await harness().db('webhook_deliveries').where({ endpoint_id: endpoint.id }).count('* as n').first();
    expect(Number(logged!.n)).to.equal(0);
  });

  it('a run whose lease release fails (its connection cut) releases it on a fresh try: the endpoint is free at once, not when the lease lapses', async () => {
    const db = harness().db;
    const org = await newOrg();
    const { endpoint } = await createEndpoint(org, receiver, '/release', { types: ['vendor.updated'] });
    receiver.reply = () => ({ status: 200 });
    await emit(org, 1);
    // The first statement that lets go of this endpoint's lease fails, as one sent on a connection
    // the server has just closed would; a sequence counts across its rollback.
    await db.raw(`CREATE SEQUENCE IF NOT EXISTS test_lease_release_refusals`);
    await db.raw(`SELECT setval('test_lease_release_refusals', 1, false)`);
    await db.raw(`CREATE OR REPLACE FUNCTION test_refuse_lease_release() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.id = '${endpoint.id}' AND OLD.lease_owner IS NOT NULL AND NEW.lease_owner IS NULL
           AND nextval('test_lease_release_refusals') = 1 THEN RAISE EXCEPTION 'lease release refused'; END IF;
        RETURN NEW;
      END $$`);
    await db.raw(`CREATE TRIGGER test_refuse_lease_release BEFORE UPDATE ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION test_refuse_lease_release()`);
    const sender = new Sender(['127.0.0.1'], FAST.timeoutMs!);
    try {
      await deliverEndpoint(
        { db, sender, settings: { ...webhookSettings(loadConfig()), ...FAST }, workerId: 'release-test', stopping: () => false },
        endpoint.id,
      );
      expect(receiver.accepted('/release')).to.have.length(1);
      const refusals = (await db.raw(`SELECT last_value FROM test_lease_release_refusals`)).rows[0];
      expect(Number(refusals.last_value), 'releases tried (the first refused)').to.equal(2);
      expect(await db('webhook_endpoints').where({ id: endpoint.id }).first('lease_owner', 'lease_expires_at')).to.deep.equal({
        lease_owner: null,
        lease_expires_at: null,
      });
    } finally {
      await db.raw(`DROP TRIGGER IF EXISTS test_refuse_lease_release ON webhook_endpoints`);
      sender.close();
    }
  });

  it('an entry acknowledged with 2xx is not sent again when the bookkeeping of its success fails once (its connection cut)', async () => {
    const db = harness().db;
    const org = await newOrg();
    const { endpoint, start } = await createEndpoint(org, receiver, '/acknowledged', { types: ['vendor.updated'] });
    receiver.reply = () => ({ status: 200 });
    await emit(org, 3);
    const expected = (await feedAfter(org, start, ['vendor.updated'])).map((e) => e.position);
    expect(expected).to.have.length(3);
    // The statement recording the second entry's success fails once, as one sent on a connection the
    // server has just closed would (while the third entry is being sent); a sequence counts across
    // its rollback.
    await db.raw(`CREATE SEQUENCE IF NOT EXISTS test_success_record_refusals`);
    await db.raw(`SELECT setval('test_success_record_refusals', 1, false)`);
    await db.raw(`CREATE OR REPLACE FUNCTION test_refuse_success_record() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.endpoint_id = '${endpoint.id}' AND NEW.position = ${expected[1]}
           AND nextval('test_success_record_refusals') = 1 THEN RAISE EXCEPTION 'success record refused'; END IF;
        RETURN NEW;
      END $$`);
    await db.raw(`CREATE TRIGGER test_refuse_success_record BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION test_refuse_success_record()`);
    const sender = new Sender(['127.0.0.1'], FAST.timeoutMs!);
    const run = () =>
      deliverEndpoint(
        { db, sender, settings: { ...webhookSettings(loadConfig()), ...FAST }, workerId: 'acknowledged-test', stopping: () => false },
        endpoint.id,
      );
    try {
      // Two runs, as the worker's next job would be: the second sends only what the first did not record.
      await run().catch(() => undefined);
      await run();
      const refusals = (await db.raw(`SELECT last_value FROM test_success_record_refusals`)).rows[0];
      expect(Number(refusals.last_value), 'records of the second entry tried (the first refused)').to.be.at.least(2);
      // Each acknowledged entry once (a failed record made the next run send the second and third again).
      expect(positions(org, receiver.accepted('/acknowledged'))).to.deep.equal(expected);
      expect(Number((await db('webhook_endpoints').where({ id: endpoint.id }).first('delivered_position')).delivered_position)).to.equal(expected[2]);
    } finally {
      await db.raw(`DROP TRIGGER IF EXISTS test_refuse_success_record ON webhook_deliveries`);
      sender.close();
    }
  });

  it('a run that finds the lease held by a run that died looks again when that lease lapses, not at the next sweep', async () => {
    await startWorker();
    const org = await newOrg();
    const { endpoint } = await createEndpoint(org, receiver, '/lapse', { types: ['vendor.updated'] });
    // A run whose worker lost its connection (or died) left its lease: it ends in 3 s.
    await harness().db.raw(`UPDATE webhook_endpoints SET lease_owner = 'a-run-that-died', lease_expires_at = now() + interval '3 seconds' WHERE id = ?`, [
      endpoint.id,
    ]);
    await emit(org, 1);
    let sent = 0;
    const sender = {
      send: async (): Promise<SendResult> => {
        sent++;
        return { outcome: 'succeeded', status: 200, durationMs: 1, error: null };
      },
    } as unknown as Sender;
    await deliverEndpoint(
      { db: harness().db, sender, settings: { ...webhookSettings(loadConfig()), ...FAST }, workerId: 'lapse-test', stopping: () => false },
      endpoint.id,
    );
    expect(sent).to.equal(0);
    // A job of its own key, due when the lease lapses (under the doorbell's key, preserve_run_at
    // would hold back the doorbells rung meanwhile).
    const { rows } = await harness().db.raw(
      `SELECT j.run_at = e.lease_expires_at AS at_lapse FROM graphile_worker.jobs j, webhook_endpoints e WHERE j.key = ? AND e.id = ?`,
      [`webhook-lapse:${endpoint.id}`, endpoint.id],
    );
    expect(rows).to.deep.equal([{ at_lapse: true }]);
    // The worker takes that job once the lease has lapsed, and the entry goes out.
    await eventually('the entry delivered after the lapse', () => receiver.accepted('/lapse').length === 1, 30_000);
    await stopWorkers();
  });
});
