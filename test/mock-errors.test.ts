import { expect } from 'chai';
import { onlyDirect } from './support/proxy';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { harness } from './support/harness';
import { newOrg, TestOrg } from './support/client';
import { freePort } from '../src/free-port';
import { ROOT } from '../src/paths';
import { Child } from './support/child';
import { startPrism } from './support/mock';

/** A bad request, as sent to the mock and to the service. */
interface BadRequest {
  what: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  /** The Authorization header; undefined: a valid credential of each. */
  authorization?: string | null;
}

const BAD_REQUESTS: BadRequest[] = [
  { what: 'an invalid body', method: 'POST', path: '/vendors', body: '{"code":1}' },
  { what: 'a body that is not JSON', method: 'POST', path: '/vendors', body: '{"code":' },
  { what: 'a body of another media type', method: 'POST', path: '/vendors', body: 'code=V1', contentType: 'text/plain' },
  { what: 'a batch with bad elements', method: 'POST', path: '/jobs/batch', body: '{"inputs":[{"code":"J-1","name":"A"},{"code":5}]}' },
  { what: 'an invalid query parameter', method: 'GET', path: '/jobs?limit=abc' },
  { what: 'an unknown query parameter', method: 'GET', path: '/jobs?lmit=5' },
  { what: 'an unknown query parameter on a write', method: 'POST', path: '/vendors?dryRun=1', body: '{"code":"V-1","name":"V"}' },
  { what: 'an unknown filter field', method: 'GET', path: '/jobs?filter[colour]=red' },
  { what: 'an unknown filter operator', method: 'GET', path: '/jobs?filter[code_like]=J' },
  { what: 'an orderBy the operation does not list', method: 'GET', path: '/jobs?orderBy=colour' },
  { what: 'a missing credential', method: 'GET', path: '/jobs', authorization: null },
  { what: 'a credential of another scheme', method: 'GET', path: '/jobs', authorization: 'Basic dXNlcjpwYXNz' },
  { what: 'a malformed bearer credential', method: 'GET', path: '/jobs', authorization: 'Bearer a b' },
  { what: 'a path no operation has', method: 'GET', path: '/jobz' },
  { what: 'a method the path does not allow', method: 'PUT', path: '/jobs' },
  // Closed sets and rules of the service the contract states (issue #43 point 8).
  { what: 'a misspelt change type', method: 'GET', path: '/changes?types=vendor.update' },
  { what: 'a feed cursor of no feed', method: 'GET', path: '/changes?after=garbage' },
  { what: 'a resource that cannot be reconciled', method: 'GET', path: '/reconciliation/vendors' },
  { what: 'a plain http webhook target on a private address', method: 'POST', path: '/webhook-endpoints', body: '{"url":"http://10.0.0.5/hooks"}' },
  {
    what: 'a misspelt webhook event type',
    method: 'POST',
    path: '/webhook-endpoints',
    body: '{"url":"https://erp.example.com/hooks","types":["vendor.update"]}',
  },
  {
    what: 'a bill-of-materials quantity that is not a number',
    method: 'PATCH',
    path: '/billOfMaterialsItem/7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42',
    body: '{"input":{"estimatedQuantity":"ten"}}',
  },
];

/**
 * The mock errs like the service: partner teams build their error handling against it. Each bad
 * request gets the same status from both, with a problem body naming the same fields.
 */
describe('the mock answers bad requests as the service does', function () {
  this.timeout(240_000);
  let mock: Child;
  let MOCK: string;
  let org: TestOrg;

  before(async function () {
    onlyDirect(this, 'sends the requests the contract forbids, to compare the mock with the service itself');
    org = await newOrg();
    ({ prism: mock, base: MOCK } = await startPrism());
  });
  after(async () => {
    await mock?.stop();
  });

  async function send(base: string, credential: string, r: BadRequest) {
    const headers: Record<string, string> = {};
    if (r.authorization !== null) headers.Authorization = r.authorization ?? `Bearer ${credential}`;
    if (r.body !== undefined) headers['Content-Type'] = r.contentType ?? 'application/json';
    const res = await fetch(base + r.path, { method: r.method, headers, body: r.body });
    const text = await res.text();
    const body = /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
    const fields = Array.isArray(body?.errors) ? body.errors.map((e: { field?: string }) => e.field ?? '').sort() : undefined;
    return { status: res.status, type: body?.type, fields, error: body?.error, message: body?.errors?.map((e: { message: string }) => e.message) };
  }

  for (const r of BAD_REQUESTS) {
    it(`${r.what}: ${r.method} ${r.path}`, async () => {
      const service = await send(harness().baseUrl, org.apiKey, r);
      const mocked = await send(MOCK, 'pk_any_value', r);
      expect(service.status, JSON.stringify(service)).to.be.within(400, 499);
      expect(mocked, `mock ${JSON.stringify(mocked)} / service ${JSON.stringify(service)}`).to.deep.equal(service);
    });
  }
});

/** `npm run mock` is stopped by a SIGTERM to its PID, Prism included: the port is free again. */
describe('npm run mock and SIGTERM', function () {
  this.timeout(240_000);

  const portFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });

  it('lists its options with --help (exit 0, nothing started)', () => {
    const help = spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'mock', 'main.js'), '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(help.status, help.stderr).to.equal(0);
    for (const option of ['--port', '--host', '--help', '-d', 'Prefer: code=']) expect(help.stdout).to.include(option);
  });

  it('frees the port when npm is sent SIGTERM', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['run', '--silent', 'mock', '--', '--port', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.on('data', (d) => (output += d));
    npm.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    const started = Date.now();
    while (!output.includes(`127.0.0.1:${port}`)) {
      if (npm.exitCode !== null) throw new Error(`npm run mock exited early:\n${output}`);
      if (Date.now() - started > 200_000) throw new Error(`npm run mock did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await portFree(port)).to.equal(false);
    npm.kill('SIGTERM');
    expect(await exited, output).to.equal(0);
    expect(await portFree(port), output).to.equal(true);
    // Exit code 0: the mock exits only once Prism, its child, has exited (src/mock/main.ts).
  });
});
