import { expect } from 'chai';
import express from 'express';
import { connect, type AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { listen } from '../../src/http/server';

/**
 * The server creates each request and response with express's prototypes already, so express's
 * own `setPrototypeOf` on entry changes nothing (see src/http/server.ts), and express works as usual.
 */
describe('unit: http server', () => {
  it('creates requests and responses as express objects, before express sees them', async () => {
    const app = express();
    app.get('/x', (req, res) => {
      res.json({ path: req.path, query: req.query, ip: typeof req.ip });
    });
    const server = await listen(app, 0, '127.0.0.1');
    const seen: boolean[] = [];
    // Runs before express's own listener: what node constructed, not what express changed.
    server.prependListener('request', (req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x?a=1`);
      expect(await res.json()).to.deep.equal({ path: '/x', query: { a: '1' }, ip: 'string' });
      expect(seen).to.deep.equal([true, true]);
    } finally {
      server.close();
    }
  });

  it("keeps express's request and response methods and node's classes", async () => {
    const app = express();
    app.get('/y', (req, res) => {
      res
        .status(201)
        .set('X-Test', req.get('x-in') ?? '')
        .type('text/plain')
        .send(`${req.hostname} ${req.protocol}`);
    });
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/y`, { headers: { 'x-in': 'abc' } });
      expect(res.status).to.equal(201);
      expect(res.headers.get('x-test')).to.equal('abc');
      expect(await res.text()).to.equal('127.0.0.1 http');
    } finally {
      server.close();
    }
  });

  // V8's own view of the objects, through its test intrinsics (enabled for the functions compiled
  // below only): a response or request in dictionary mode, or one hidden class per object, is what
  // made every property access of node, express and ours slow.
  it('gives every request and response fast properties and one shape', async () => {
    setFlagsFromString('--allow-natives-syntax');
    const fast = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
    const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    setFlagsFromString('--no-allow-natives-syntax');
    const app = express();
    const seen: { req: object; res: object }[] = [];
    app.get('/z', (req, res) => {
      res.json({ ok: true });
      seen.push({ req, res });
    });
    const server = await listen(app, 0, '127.0.0.1');
    try {
      for (let i = 0; i < 3; i++) await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/z`)).json();
      expect(seen).to.have.length(3);
      for (const { req, res } of seen) {
        expect(fast(req), 'request has fast properties').to.equal(true);
        expect(fast(res), 'response has fast properties').to.equal(true);
      }
      expect(sameShape(seen[1].res, seen[2].res), 'responses share one shape').to.equal(true);
      expect(sameShape(seen[1].req, seen[2].req), 'requests share one shape').to.equal(true);
    } finally {
      server.close();
    }
  });

  it('answers a request without Host and an unknown Expect with a problem body, as every other error', async () => {
    const app = express();
    app.get('/x', (_req, res) => void res.json({ ok: true }));
    const server = await listen(app, 0, '127.0.0.1');
    const port = (server.address() as AddressInfo).port;
    // Raw: fetch always sends Host and never an Expect of its own.
    const ask = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
      });
    try {
      for (const [request, status, type] of [
        ['GET /x HTTP/1.1\r\n\r\n', 400, '/problems/bad-request'],
        ['GET /x HTTP/1.1\r\nHost: a\r\nExpect: bogus\r\n\r\n', 417, '/problems/expectation-failed'],
      ] as const) {
        const answer = await ask(request);
        const [head, body] = answer.split('\r\n\r\n');
        expect(head, answer).to.match(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(head).to.match(/content-type: application\/problem\+json/i);
        expect(JSON.parse(body)).to.include({ status, type });
      }
      // HTTP/1.0 needs no Host; HTTP/1.1 with one is served as before.
      expect(await ask('GET /x HTTP/1.0\r\n\r\n')).to.match(/^HTTP\/1\.1 200 [\s\S]*\{"ok":true\}$/);
      expect(await ask('GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).to.match(/^HTTP\/1\.1 200 /);
    } finally {
      server.close();
    }
  });
});
