import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DOCS_CONTENT_SECURITY_POLICY } from '../src/http/docs';
import { GENERATED_DIR, ROOT } from '../src/paths';
import { startProductionApp, type ProductionApp } from './support/production-app';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { makeOrder } from './support/purchasing-fixtures';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it came over the wire (compressed or not). */
  wire: Buffer;
  /** Chunks the body arrived in. */
  chunks: number;
}

/** A GET that sends `Accept-Encoding` as given (fetch would add and undo its own) and keeps the bytes as sent. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    // A connection each (no keep-alive): a socket the server closed while idle is never reused.
    const req = httpRequest(base + path, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, wire: Buffer.concat(chunks), chunks: chunks.length }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Responses are compressed when the client accepts it and the body is large enough to gain
 * (src/http/compression.ts): a bulk page as it streams (production mode, as streamed-pages.test.ts
 * runs it), a list page held whole, the contract; a small body goes out as it is.
 */
describe('compressed responses', function () {
  this.timeout(60_000);
  let org: TestOrg;
  let production: ProductionApp | undefined;
  let base: string;

  before(async function () {
    // The production app (streamed pages) is started in this process, on the harness's database.
    if (!harness().inProcess) return this.skip();
    org = await newOrg();
    await makeOrder(
      org,
      {},
      Array.from({ length: 600 }, (_, i) => ({ line_number: i + 1, description: `Line ${i + 1}: 2x4 stud, 8 ft, kiln-dried fir` })),
    );
    production = await startProductionApp();
    base = production.base;
  });

  after(async () => {
    await production?.stop();
  });

  const auth = () => ({ authorization: `Bearer ${org.apiKey}` });

  it('streams a bulk page compressed (gzip or brotli) when accepted, the same document, far fewer bytes', async () => {
    const plain = await rawGet(base, '/items?limit=2500', auth());
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    // A request that accepts no encoding never passes through the compressor (it cost every such
    // response a separate write of headers and body): nothing varies for it.
    expect(String(plain.headers['vary'] ?? '')).to.not.match(/Accept-Encoding/i);
    const document = JSON.parse(plain.wire.toString('utf8'));
    expect(document.data).to.have.length(600);

    const gzip = await rawGet(base, '/items?limit=2500', { ...auth(), 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(gzip.headers['vary']).to.match(/Accept-Encoding/i);
    // Streamed: no length known in advance, sent in chunks as the parts are compressed.
    expect(gzip.headers['transfer-encoding']).to.equal('chunked');
    expect(gzip.headers['content-length']).to.equal(undefined);
    expect(JSON.parse(gunzipSync(gzip.wire).toString('utf8'))).to.deep.equal(document);
    expect(gzip.wire.length).to.be.below(plain.wire.length / 4);

    const br = await rawGet(base, '/items?limit=2500', { ...auth(), 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).to.equal('br');
    expect(JSON.parse(brotliDecompressSync(br.wire).toString('utf8'))).to.deep.equal(document);
  });

  it('compresses a page held whole and the contract; leaves a small body (a single read) and a refused encoding as they are', async () => {
    const inputs = Array.from({ length: 50 }, (_, i) => ({ code: `GZ-${i}`, name: `Compressed job ${i}` }));
    expectStatus(await org.api.post('/jobs/batch', { inputs }), 200);
    const page = await rawGet(base, '/jobs?limit=50', { ...auth(), 'accept-encoding': 'gzip' });
    expect(page.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(gunzipSync(page.wire).toString('utf8'))).to.have.length(50);

    const contract = await rawGet(base, '/openapi.json', { 'accept-encoding': 'gzip' });
    expect(contract.status).to.equal(200);
    expect(contract.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(gunzipSync(contract.wire).toString('utf8')).openapi).to.equal('3.0.3');

    const single = await rawGet(base, '/jobs/GZ-1', { ...auth(), 'accept-encoding': 'gzip' });
    expect(single.status).to.equal(200);
    expect(single.wire.length).to.be.below(1024);
    expect(single.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(single.wire.toString('utf8')).code).to.equal('GZ-1');

    const identity = await rawGet(base, '/jobs?limit=50', { ...auth(), 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(identity.wire.toString('utf8'))).to.have.length(50);
  });

  it('serves /docs compressed, with a policy of this host only, and the page loads nothing from another host', async () => {
    // The page as `npm run docs` builds it (scripts/docs.mjs), built here when missing or older than the script.
    const built = join(GENERATED_DIR, 'docs', 'index.html');
    const script = join(ROOT, 'scripts', 'docs.mjs');
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(script).mtimeMs) await promisify(execFile)(process.execPath, [script], { cwd: ROOT });

    const docs = await rawGet(base, '/docs', { accept: 'text/html', 'accept-encoding': 'gzip' });
    expect(docs.status).to.equal(200);
    expect(docs.headers['content-encoding']).to.equal('gzip');
    expect(docs.headers['content-security-policy']).to.equal(DOCS_CONTENT_SECURITY_POLICY);
    expect(DOCS_CONTENT_SECURITY_POLICY).to.match(/default-src 'self'/);
    const html = gunzipSync(docs.wire).toString('utf8');
    expect(html).to.match(/<script[^>]*>/);
    // What a browser would load: a src or href of markup, a src property the inlined Redoc sets
    // (`src:` + a string, or a choice of strings), a CSS url() or @import. Links a reader follows (href="https://...") are not loads.
    const loads = [
      ...html.matchAll(/\bsrc\s*[=:][^,;{}<>]{0,40}?[`"'](https?:\/\/[^`"'\s>]+)/gi),
      ...html.matchAll(/<link\b[^>]*\bhref\s*=\s*["']?(https?:\/\/[^"'\s>]+)/gi),
      ...html.matchAll(/url\(\s*["']?(https?:\/\/[^"')\s]+)/gi),
      ...html.matchAll(/@import\s+(?:url\()?\s*["']?(https?:\/\/[^"')\s;]+)/gi),
    ].map((m) => m[1]);
    expect(loads).to.deep.equal([]);
    expect(html).to.not.include('cdn.redoc.ly');
  });
});
