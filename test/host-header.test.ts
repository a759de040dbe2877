import { expect } from 'chai';
import { newOrg } from './support/client';
import { rawCall } from './support/raw-http';
import { itDirect } from './support/proxy';

describe('Host header', () => {
  itDirect('two Host headers are a 400 problem (RFC 9112 3.2), before anything else is looked at', 'Prism reads one Host header', async () => {
    const org = await newOrg();
    // rawCall sends the server's own Host first; this is the second.
    for (const auth of [[], ['Authorization', `Bearer ${org.apiKey}`]]) {
      const res = await rawCall('GET', '/tax-codes', ['Host', '127.0.0.2:1', ...auth]);
      expect(res.status, res.text).to.equal(400);
      expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(res.body.errors[0]).to.include({ field: 'header.host', rule: 'single' });
    }
    expect((await rawCall('GET', '/tax-codes', ['Authorization', `Bearer ${org.apiKey}`])).status).to.equal(200);
  });
});
