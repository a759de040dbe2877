import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { newOrg, type TestOrg } from './support/client';
import { call, startInstance, type Instance } from './support/instance';

/**
 * A request takes its organization's turn at the database (src/http/fair-share.ts) only once its
 * body has arrived: uploads that trickle in hold their own sockets and nothing else.
 */
describe('fair share: bodies wait outside it', function () {
  this.timeout(120_000);
  let instance: Instance;
  let org: TestOrg;
  const sockets: Socket[] = [];

  before(async () => {
    org = await newOrg();
    // A pool of 4: each organization's share is 2 requests in progress.
    instance = await startInstance();
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await instance?.close();
  });

  /** A POST whose 1000-byte body has sent only its first byte (and sends nothing more). */
  function trickle(): Promise<void> {
    const { hostname, port } = new URL(instance.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `POST /vendors HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${org.apiKey}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
          () => resolve(),
        );
      });
      socket.on('error', reject);
      sockets.push(socket);
    });
  }

  it('five slow uploads of an organization leave its other requests served as if they were not there', async () => {
    for (let i = 0; i < 5; i++) await trickle();
    // Give the server time to have seen every upload's headers (and, before, taken their turns).
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 4; i++) {
      const res = await call(instance.baseUrl, 'GET', '/tax-codes', { token: org.apiKey, timeoutMs: 15_000 });
      expect(res.status, res.text).to.equal(200);
      const created = await call(instance.baseUrl, 'POST', '/tax-codes', {
        token: org.apiKey,
        body: { code: `FAST-${i}`, description: 'Not held up', taxPercent: 0.01 },
        timeoutMs: 15_000,
      });
      expect(created.status, created.text).to.equal(201);
    }
  });
});
