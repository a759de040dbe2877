import { expect } from 'chai';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadContract } from '../src/http/contract';
import { ROOT } from '../src/paths';
import { freePort } from '../src/free-port';
import { Child, startChild, waitForHttp } from './support/child';

/**
 * What `npm run proxy-check` relies on, checked against a stand-in upstream: `prism proxy --errors`
 * passes a response that keeps the contract, replaces one that breaks it with its VIOLATIONS error
 * (and an `sl-violations` header), answers a request that breaks the contract itself without
 * forwarding it, and proxy-check's reading of Prism's log (scripts/prism-log.mjs) counts both as
 * violations and records the status the upstream gave each operation.
 */
describe('prism proxy --errors, as proxy-check uses it', function () {
  this.timeout(240_000); // Prism parses the whole contract at start: over a minute on a loaded 2-core machine
  const contract = loadContract() as any;
  const valid = contract.paths['/tax-codes/{taxCodeIdOrCode}'].get.responses['200'].content['application/json'].example;
  const forwarded: string[] = [];
  let upstream: Server;
  let prism: Child;
  const log = () => prism.output();
  let base: string;

  before(async () => {
    // The stand-in: the contract's own example for GET /tax-codes/{taxCodeIdOrCode}, and a list whose
    // element lacks every required property but `id` for GET /tax-codes.
    upstream = createServer((req, res) => {
      forwarded.push(`${req.method} ${req.url}`);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('X-Request-Id', 'stand-in');
      res.end(JSON.stringify(req.url?.startsWith('/tax-codes/') ? valid : [{ id: valid.id }]));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    prism = startChild(join(ROOT, 'node_modules', '.bin', 'prism'), [
      'proxy',
      join(ROOT, 'generated', 'openapi.yaml'),
      upstreamUrl,
      '--errors',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
    ]);
    await waitForHttp(prism, base + '/openapi-proxy-readiness', 170_000, 'prism proxy');
  });

  after(async () => {
    await prism?.stop();
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  });

  const auth = { Authorization: 'Bearer pk_stand_in' };

  it('forwards a valid request and passes a response that keeps the contract', async () => {
    const res = await fetch(`${base}/tax-codes/TX-CA`, { headers: auth });
    expect(res.status).to.equal(200);
    expect(res.headers.get('sl-violations')).to.equal(null);
    expect(await res.json()).to.deep.equal(valid);
  });

  it('replaces a response that breaks the contract with its VIOLATIONS error', async () => {
    const res = await fetch(`${base}/tax-codes`, { headers: auth });
    expect(res.status).to.equal(500);
    const body = await res.json();
    expect(body.type).to.equal('https://stoplight.io/prism/errors#VIOLATIONS');
    expect(res.headers.get('sl-violations')).to.include("must have required property 'code'");
  });

  it('answers a request that breaks the contract itself, without forwarding it', async () => {
    const before = forwarded.length;
    const res = await fetch(`${base}/tax-codes?orderBy=colour`, { headers: auth });
    expect(res.status).to.equal(422);
    expect((await res.json()).type).to.equal('https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY');
    const anonymous = await fetch(`${base}/tax-codes/TX-CA`);
    expect(anonymous.status).to.equal(401);
    expect(forwarded.length).to.equal(before);
  });

  it("proxy-check's reading of the log counts both violations and records the upstream statuses", async () => {
    const { readPrismLog } = await import(pathToFileURL(join(ROOT, 'scripts', 'prism-log.mjs')).href);
    // Prism logs asynchronously: wait for the last request's line.
    for (let i = 0; i < 50 && !/UNAUTHORIZED/.test(log()); i++) await new Promise((r) => setTimeout(r, 100));
    const read = readPrismLog(log(), contract);
    expect(read.requests).to.equal(4);
    expect(read.violations).to.have.length(3);
    expect(read.violations.join('\n'))
      .to.match(/^GET \/tax-codes: VIOLATIONS/m)
      .and.match(/UNPROCESSABLE_ENTITY/)
      .and.match(/UNAUTHORIZED/);
    expect([...read.seen.get('getTaxCode')]).to.deep.equal([200]);
    expect([...read.seen.get('listTaxCodes')]).to.deep.equal([200]);
    expect(read.unfinished).to.equal(0);
  });
});
