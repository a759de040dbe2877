import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../src/paths';

const build = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });

/**
 * `npm start` builds only what changed (scripts/build.mjs): on an unchanged checkout it runs no
 * step and prints nothing before the service's own lines; a taken port is said before anything is built;
 * TypeScript is transpiled file by file (esbuild, scripts/transpile.mjs), only the files that changed.
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

  it('transpiles a fresh checkout in one step, then only the file that changed, and the result runs', () => {
    // A project of two sources beside copies of the build scripts (they find the project from
    // their own folder), on this checkout's node_modules.
    const dir = mkdtempSync(join(tmpdir(), 'start-build-'));
    try {
      mkdirSync(join(dir, 'scripts'));
      mkdirSync(join(dir, 'src'));
      for (const script of ['build.mjs', 'transpile.mjs']) copyFileSync(join(ROOT, 'scripts', script), join(dir, 'scripts', script));
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, isolatedModules: true, esModuleInterop: true }, include: ['src'] }),
      );
      writeFileSync(join(dir, 'src', 'name.ts'), "export interface Named { name: string }\nexport const who: Named = { name: 'Lena' };\n");
      writeFileSync(
        join(dir, 'src', 'greet.ts'),
        "import { join } from 'node:path';\nimport { who, type Named } from './name';\nclass Greeting { readonly text: string = 'hello'; }\nconst named: Named = who;\nconsole.log(new Greeting().text, named.name, join('a', 'b'));\n",
      );
      const buildHere = () => spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { cwd: dir, encoding: 'utf8' });

      const first = buildHere();
      expect(first.status, first.stderr).to.equal(0);
      expect(first.stdout).to.match(/^build: transpiled 2 changed TypeScript files \(esbuild, \d+ ms; npm test type-checks\)\n$/);
      const ran = spawnSync(process.execPath, [join(dir, 'dist', 'src', 'greet.js')], { encoding: 'utf8' });
      expect(ran.stdout, ran.stderr).to.equal('hello Lena a/b\n');

      const unchanged = buildHere();
      expect(unchanged.stdout + unchanged.stderr).to.equal('');

      // One source changed since the build: its output made older than it (the clock's resolution
      // could make an edit made now look as old as the output).
      const earlier = new Date(Date.now() - 3_600_000);
      utimesSync(join(dir, 'dist', 'src', 'name.js'), earlier, earlier);
      const one = buildHere();
      expect(one.status, one.stderr).to.equal(0);
      expect(one.stdout).to.match(/^build: transpiled 1 changed TypeScript file \(esbuild/);
      expect(buildHere().stdout).to.equal('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
