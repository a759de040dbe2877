import { expect } from 'chai';
import express from 'express';
import { createLogger, LOG_FLUSH_MS } from '../src/ops/log';
import { requestLogger } from '../src/http/request-log';
import { createContext } from '../src/http/context';
import { errorMiddleware } from '../src/http/problem';
import { listen } from '../src/http/server';
import { anonymous, newOrg, type TestOrg } from './support/client';
import { call, startCompiledServer, startInstance, type Instance } from './support/instance';
import { onlyDirect } from './support/proxy';
import { harness } from './support/harness';
import { setRateLimits } from '../src/admin/rate-limits';
import { captureLog as capture } from './support/log-capture';
import { eventually } from './support/webhook-receiver';

describe('ops: request logs and metrics', () => {
  const log = capture();
  let instance: Instance;
  let org: TestOrg;
  const METRICS_TOKEN = 'metrics-token-for-tests';

  before(async function () {
    this.timeout(120_000);
    org = await newOrg();
    instance = await startInstance({ config: { metricsToken: METRICS_TOKEN, logLevel: 'info' }, logger: createLogger('info', log.stream) });
  });
  after(async () => instance?.close());

  it('logs one JSON line per request with request id, organization, operationId, status and duration, and no secret', async () => {
    const requestId = 'ops-log-test-1';
    const res = await call(instance.baseUrl, 'POST', '/tax-codes', {
      token: org.apiKey,
      headers: { 'X-Request-Id': requestId, Cookie: 'session=cookie-secret' },
      body: { code: 'LOG-1', description: 'Logged', taxPercent: 0.05 },
    });
    expect(res.status, res.text).to.equal(201);
    // The line is written on the response's 'finish', which may follow the client's read of it.
    await eventually('the request logged', () => log.parsed().some((l) => l.requestId === requestId));
    const mine = log.parsed().filter((l) => l.requestId === requestId);
    expect(mine).to.have.length(1);
    const line = mine[0];
    expect(line).to.include({ level: 30, organizationId: org.id, operationId: 'createTaxCode', status: 201 });
    expect(line.durationMs).to.be.a('number');
    expect(line.req).to.deep.equal({ method: 'POST', path: '/tax-codes' });
    const raw = log.lines.find((l) => l.includes(requestId))!;
    expect(raw).not.to.include(org.apiKey);
    expect(raw).not.to.include('cookie-secret');
  });

  it('redacts tokens, keys and Authorization wherever they appear in a logged object', () => {
    const out = capture();
    createLogger('info', out.stream).info(
      { headers: { authorization: 'Bearer abc' }, form: { client_secret: 'cs_x', access_token: 'tok' }, apiKey: 'pk_1' },
      'x',
    );
    expect(out.lines[0]).not.to.match(/abc|cs_x|tok"|pk_1/);
    expect(out.parsed()[0].headers.authorization).to.equal('[redacted]');
  });

  it('an unexpected error (a 5xx) is logged on its request line as err, at error level, redacted', async () => {
    const out = capture();
    const app = express();
    app.use((req, _res, next) => {
      createContext(req, 'ops-log-500');
      next();
    });
    app.use(requestLogger(createLogger('info', out.stream)));
    app.get('/boom', () => {
      throw Object.assign(new Error('the database said no'), { apiKey: 'pk_leaked' });
    });
    app.use(errorMiddleware);
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/boom`);
      expect(res.status).to.equal(500);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).not.to.include('the database said no');
      await eventually('the request logged', () => out.lines.length > 0);
      const [line] = out.parsed();
      expect(line).to.include({ level: 50, requestId: 'ops-log-500', status: 500, msg: 'request completed' });
      expect(line.err.message).to.equal('the database said no');
      expect(line.err.apiKey).to.equal('[redacted]');
      expect(out.lines[0]).not.to.include('pk_leaked');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('the compiled service writes its buffered log lines to stdout when idle (every LOG_FLUSH_MS), and what is left when it exits', async function () {
    onlyDirect(this, 'runs its own compiled instance');
    this.timeout(120_000);
    const { child, base } = await startCompiledServer({ BACKGROUND_WORKER: 'off' });
    try {
      const requestId = 'ops-log-flush-1';
      expect((await call(base, 'GET', '/tax-codes', { token: org.apiKey, headers: { 'X-Request-Id': requestId } })).status).to.equal(200);
      // One line does not fill the buffer: while the service idles, only its flush timer writes it.
      // The wait is long (a loaded machine), and far past LOG_FLUSH_MS: a timer that never fires fails it.
      await eventually('the idle line flushed', () => child.output().includes(`"requestId":"${requestId}"`), Math.max(20_000, 10 * LOG_FLUSH_MS));
      const last = 'ops-log-flush-2';
      expect((await call(base, 'GET', '/tax-codes', { token: org.apiKey, headers: { 'X-Request-Id': last } })).status).to.equal(200);
    } finally {
      await child.stop();
    }
    // (Its stdout may still be in the pipe when 'exit' fires.)
    await eventually('the last line written at exit', () => child.output().includes('"requestId":"ops-log-flush-2"'), 10_000);
  });

  it('GET /metrics needs the METRICS_TOKEN bearer and serves request counts, durations and pool gauges by operation', async () => {
    expect((await call(instance.baseUrl, 'GET', '/metrics')).status).to.equal(401);
    expect((await call(instance.baseUrl, 'GET', '/metrics', { token: 'wrong' })).status).to.equal(401);
    expect((await call(instance.baseUrl, 'GET', '/tax-codes', { token: org.apiKey })).status).to.equal(200);
    const res = await call(instance.baseUrl, 'GET', '/metrics', { token: METRICS_TOKEN });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    const text = res.text;
    expect(text).to.match(/^http_requests_total\{operationId="listTaxCodes",method="GET",status="200"\} [1-9]/m);
    expect(text).to.match(/^http_requests_total\{operationId="createTaxCode",method="POST",status="201"\} [1-9]/m);
    expect(text).to.match(/^http_request_duration_seconds_bucket\{le="\+Inf",operationId="listTaxCodes",method="GET",status="200"\} [1-9]/m);
    for (const name of [
      'db_pool_connections_in_use',
      'db_pool_connections_idle',
      'db_pool_acquires_waiting',
      'rate_limit_rejections_total',
      'outbox_emails_pending',
      'webhook_deliveries_pending',
    ]) {
      expect(text).to.match(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('counts every rate-limit refusal in rate_limit_rejections_total by policy: API burst and hourly limits and the token endpoint', async () => {
    const rejections = async () => {
      const text = (await call(instance.baseUrl, 'GET', '/metrics', { token: METRICS_TOKEN })).text;
      const count = (limit: string) => Number(new RegExp(`^rate_limit_rejections_total\\{limit="${limit}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return { burst: count('org-burst'), hourly: count('org-hourly'), token: count('token-failures'), all: text };
    };
    const before = await rejections();
    const bursty = await newOrg();
    await setRateLimits(harness().db, bursty.id, { burst: 2, hourly: 1000 });
    const burstAnswers = await Promise.all(Array.from({ length: 6 }, () => call(instance.baseUrl, 'GET', '/tax-codes', { token: bursty.apiKey })));
    const burstRefused = burstAnswers.filter((a) => a.status === 429).length;
    expect(burstRefused).to.be.above(0);
    const hourlyOrg = await newOrg();
    await setRateLimits(harness().db, hourlyOrg.id, { burst: 1000, hourly: 1 });
    for (let i = 0; i < 3; i++) await call(instance.baseUrl, 'GET', '/tax-codes', { token: hourlyOrg.apiKey });
    const wrong = new URLSearchParams({ grant_type: 'client_credentials', client_id: bursty.clientId, client_secret: 'cs_wrong' }).toString();
    const token = () =>
      fetch(instance.baseUrl + '/oauth2/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: wrong });
    for (let i = 0; i < 10; i++) expect((await token()).status).to.equal(401);
    expect((await token()).status).to.equal(429);
    expect((await token()).status).to.equal(429);
    const after = await rejections();
    expect(after.burst - before.burst).to.equal(burstRefused);
    expect(after.hourly - before.hourly).to.equal(2);
    expect(after.token - before.token).to.equal(2);
    // Labels are the policies only (never an organization or a credential).
    const labels = [...after.all.matchAll(/^rate_limit_rejections_total\{(.*)\} /gm)].map((m) => m[1]);
    expect(
      labels.every((l) => /^limit="(org|credential)-(burst|hourly)"$|^limit="token-failures"$/.test(l)),
      labels.join('; '),
    ).to.equal(true);
  });

  it('without METRICS_TOKEN, /metrics does not exist', async function () {
    onlyDirect(this, 'Prism answers a path outside the contract itself');
    expect((await anonymous().unchecked.get('/metrics')).status).to.equal(404);
  });
});
