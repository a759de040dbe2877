import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
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
});
