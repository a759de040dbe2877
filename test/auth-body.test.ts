import { expect } from 'chai';
import http from 'node:http';
import { harness } from './support/harness';
import { newOrg } from './support/client';
import { itDirect, PRISM } from './support/proxy';

/** Authentication runs before the body is read (src/http/authentication.ts). */
describe('authentication before the body', () => {
  // Announces a 4 MB body, sends 1 kB of it and waits: only an answer given without reading the
  // body can arrive.
  const postWithoutBody = (authorization: string | undefined) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL('/jobs/batch', harness().baseUrl);
      const req = http.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(4 * 1024 * 1024), ...(authorization ? { authorization } : {}) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
      req.write('{"inputs": [' + ' '.repeat(1024));
    });

  itDirect('refuses a bad or missing credential on a large body without reading it', PRISM.outsideContract('an unfinished body'), async () => {
    expect(await postWithoutBody('Bearer not-a-key')).to.equal(401);
    expect(await postWithoutBody(undefined)).to.equal(401);
    const revoked = await newOrg();
    expect(await postWithoutBody(`Bearer ${revoked.apiKey}x`)).to.equal(401);
  });
});
