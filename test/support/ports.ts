import { createServer } from 'node:net';

/**
 * A TCP port free right now on 127.0.0.1, chosen by the kernel (binding port 0): never a guessed
 * range that other services on the machine may hold. The port is released before it is returned,
 * so a child process can bind it; a child that still loses the race exits on EADDRINUSE, which
 * startChild (test/support/child.ts) reports with its output.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port from listen(0)'))));
    });
  });
}
