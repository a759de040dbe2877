import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadDemoData } from '../seeds/demo';
import { newOrg } from './support/client';
import { startChild } from './support/child';
import { harness } from './support/harness';

const root = resolve(__dirname, '..', '..');
const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * The kit as integrators get it: `npm pack` in client/ (which builds it) gives a tarball that
 * installs into an empty project, offline (from the tarballs alone, whatever npm's cache holds), and a TypeScript file
 * using it compiles there and runs.
 */
describe('client kit: the packed package', function () {
  // Builds the kit (tsc) and compiles against it: about 15 s alone, much more on a loaded machine.
  this.timeout(240_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'client-pack-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('installs from its tarball into an empty folder, offline, and a TypeScript file using it compiles and runs, as does the README quick start', async () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['pack', '--silent', '--pack-destination', dir], join(root, 'client'));
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tarball).to.match(/^procurement-api-client-.*\.tgz$/);
    const project = join(dir, 'project');
    mkdirSync(join(dir, 'deps'));
    mkdirSync(project);
    // Its dependencies from this repository's node_modules, packed the same way, each named by its
    // tarball in `dependencies` and `overrides`: npm then resolves no version, so the install needs
    // no registry metadata (a fresh machine's cache has none after `npm ci`, which fetches tarballs only).
    const deps = dependencyClosure(Object.keys(JSON.parse(readFileSync(join(root, 'client', 'package.json'), 'utf8')).dependencies));
    const tarballs: Record<string, string> = {};
    for (const name of deps) {
      const [packed] = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', join(dir, 'deps'), join(root, 'node_modules', name)], dir));
      tarballs[name] = `file:${join(dir, 'deps', packed.filename)}`;
    }
    expect(readdirSync(join(dir, 'deps'))).to.have.length(deps.length);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'erp-connector',
        private: true,
        type: 'module',
        dependencies: { '@procurement-api/client': `file:${join(dir, tarball!)}`, ...tarballs },
        overrides: tarballs,
      }),
    );
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', '--silent'], project);
    writeFileSync(
      join(project, 'connector.ts'),
      [
        "import { createClient, paginate, FeedFollower, memoryCursorStore, verifyWebhook, reconcile, objectDigest, type ChangeEntry } from '@procurement-api/client';",
        "const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'key' });",
        "export async function jobs() { const { data } = await client.GET('/jobs/{jobIdOrCode}', { params: { path: { jobIdOrCode: 'J-1' } } }); return data?.code; }",
        "export async function codes() { const out: string[] = []; for await (const v of paginate(client, '/vendors', { query: { filter: { code_in: ['A'] } } })) out.push(v.code); return out; }",
        'export const follower = new FeedFollower({ client, cursorStore: memoryCursorStore(), handle: (e: ChangeEntry) => void e.cursor });',
        "export const check = () => reconcile({ client, resource: 'vendor', local: [] }).then((r) => r.equal);",
        "export const verify = (body: string) => verifyWebhook(body, {}, ['whsec_x']).data.cursor;",
        'console.log(objectDigest({ b: 1, a: 2 }));',
        '',
      ].join('\n'),
    );
    // skipLibCheck as `tsc --init` sets it: checking the 30,000 lines of contract types again costs 20 times the compile.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true, types: [], outDir: 'out' },
        files: ['connector.ts'],
      }),
    );
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
    // The digest of {"a":2,"b":1}: the package runs from its install alone.
    // The digest of {"a":2,"b":1}, the service's way (SHA-256 of the RFC 8785 text): the package runs from its install alone.
    expect(run(process.execPath, ['out/connector.js'], project).trim()).to.equal(createHash('sha256').update('{"a":2,"b":1}').digest('hex'));

    // client/README.md's quick start, copied as it stands into the same project and run against the
    // service with the demo data it names (the codes of two demo vendors, the jobs' states).
    const readme = readFileSync(join(root, 'client', 'README.md'), 'utf8');
    const quickStart = /## Quick start\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickStart, "client/README.md's quick start code block").to.be.a('string');
    writeFileSync(join(project, 'quickstart.mjs'), quickStart!);
    const org = await newOrg();
    await loadDemoData(harness().db, org.id);
    // Asynchronously: the service answering it runs in this process.
    const child = startChild(process.execPath, ['quickstart.mjs'], {
      cwd: project,
      env: { ...process.env, BASE_URL: harness().baseUrl, CLIENT_ID: org.clientId, CLIENT_SECRET: org.clientSecret },
    });
    const code = await new Promise<number | null>((done) => child.process.once('exit', done));
    const output = child.output();
    expect(code, output).to.equal(0);
    expect(output).to.include('Ferguson Enterprises').and.not.include('Error');
    // The jobs' codes (the first line, an array, not an error) and the follower's entries of the demo data.
    expect(output.split('\n')[0], output).to.match(/^\[ '[^']+'/);
    expect(output, output).to.match(/^vendor\.created [0-9a-f-]{36}$/m);
  });
});

/** The packages `names` need at run time, themselves included, as installed in the repository. */
function dependencyClosure(names: string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
  };
  names.forEach(visit);
  return [...seen];
}
