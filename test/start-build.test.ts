import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ROOT } from '../src/paths';

const build = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });

/**
 * `npm start` builds only what changed (scripts/build.mjs): on an unchanged checkout it runs no
 * step and prints nothing before the service's own lines; a taken port is said before anything is built.
 */
describe('npm start: the build before the service', function () {
  this.timeout(240_000);

  it('on an unchanged checkout runs no build step and prints nothing', () => {
    // The first run brings dist/ and the docs page up to date (a step line each, if any ran).
    const first = build([]);
    expect(first.status, first.stderr).to.equal(0);
    for (const line of first.stdout.split('\n').filter(Boolean)) expect(line).to.match(/^build: /);
    const second = build([]);
    expect(second.status, second.stderr).to.equal(0);
    expect(second.stdout + second.stderr).to.equal('');
  });

  it('says a taken port is taken, in one line, before building anything', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const started = build(['--port-check'], { PORT: String(port) });
      expect(started.status).to.equal(1);
      expect(started.stdout).to.equal('');
      expect(started.stderr.trim()).to.equal(
        `port ${port} is already in use (another server running?): stop it, or start with PORT=<a free port> (PORT=0 picks one)`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
