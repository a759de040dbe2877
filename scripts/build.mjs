// The first step of `npm start` and `npm run mock`, and `npm run build`: builds only what changed.
// - TypeScript -> dist/: `npm start` and `npm run mock` transpile each changed source with esbuild
//   (scripts/transpile.mjs: about a second for the whole tree, where tsc took 15-45 s of a first
//   start); `npm run build` (`--typecheck`, for a deployment) runs `tsc --incremental`, only when a
//   source is newer than its last build. `npm test` runs a full `tsc` either way, so every change is
//   type-checked before it lands. An unchanged checkout starts without loading either compiler;
// - the Redoc page generated/docs/index.html, built only when the bundled contract or the docs
//   settings are newer than it.
// It prints one line per step it runs and nothing else. `--port-check` (npm start) first makes sure
// the port the service will listen on is free, so a second start says so before building anything.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { transpileChanged } from './transpile.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** The newest modification time of the files under `dir` whose names end with one of `endings`. */
function newest(dir, endings) {
  if (!existsSync(dir)) return 0;
  if (!statSync(dir).isDirectory()) return mtime(dir);
  let found = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found = Math.max(found, newest(path, endings));
    else if (endings.some((e) => entry.name.endsWith(e))) found = Math.max(found, statSync(path).mtimeMs);
  }
  return found;
}

/** PORT as the service will read it: the environment, else `.env`, else 3000 (src/config.ts). */
function configuredPort() {
  if (process.env.PORT !== undefined) return process.env.PORT;
  const envFile = join(root, '.env');
  if (existsSync(envFile)) {
    const line = readFileSync(envFile, 'utf8')
      .split('\n')
      .find((l) => /^\s*PORT\s*=/.test(l));
    if (line)
      return line
        .replace(/^\s*PORT\s*=\s*/, '')
        .replace(/^["']|["']\s*$/g, '')
        .trim();
  }
  return '3000';
}

/** Exits with the service's own one-line message when the port is taken (src/startup-hint.ts). */
async function checkPort() {
  const port = Number(configuredPort());
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return; // 0 picks a free port; a bad value is config.ts's to report
  await new Promise((done) => {
    const server = createServer();
    server.once('error', (err) => {
      if (err.code === 'EADDRINUSE') {
        console.error(`port ${port} is already in use (another server running?): stop it, or start with PORT=<a free port> (PORT=0 picks one)`);
        process.exit(1);
      }
      done(); // EACCES and the like: the service reports them itself
    });
    server.listen(port, () => server.close(done));
  });
}

function run(command, args) {
  execFileSync(command, args, { cwd: root, stdio: 'inherit' });
}

if (process.argv.includes('--port-check')) await checkPort();

// TypeScript. tsc's build info sits in dist/: removing dist/ rebuilds everything.
if (process.argv.includes('--typecheck')) typecheckedBuild();
else {
  const started = performance.now();
  const transpiled = await transpileChanged(root).catch(() => process.exit(1)); // esbuild has printed its errors
  if (transpiled > 0)
    console.log(
      `build: transpiled ${transpiled} changed TypeScript file${transpiled === 1 ? '' : 's'} (esbuild, ${Math.round(performance.now() - started)} ms; npm test type-checks)`,
    );
}

function typecheckedBuild() {
  const buildInfo = join(root, 'dist', '.tsbuildinfo');
  const sources = Math.max(
    ...['src', 'test', 'migrations', 'seeds', 'examples'].map((d) => newest(join(root, d), ['.ts', '.json'])),
    ...['tsconfig.json', 'knexfile.ts', join('generated', 'api-types.ts'), 'package-lock.json'].map((f) => mtime(join(root, f))),
  );
  // The build info marks the last type-checked build (it is touched after each): outputs that esbuild
  // wrote since (npm start) are newer than their sources but were never type-checked.
  if (!existsSync(join(root, 'dist', 'src', 'server.js'))) rmSync(buildInfo, { force: true });
  if (sources > mtime(buildInfo)) {
    console.log('build: compiling TypeScript (tsc --incremental)');
    try {
      run(bin('tsc'), ['-p', '.', '--incremental', '--tsBuildInfoFile', buildInfo]);
    } catch {
      process.exit(1); // tsc has printed its errors
    }
    const now = new Date();
    if (existsSync(buildInfo)) utimesSync(buildInfo, now, now);
  }
}

// The Redoc page.
const page = join(root, 'generated', 'docs', 'index.html');
const docsInputs = Math.max(
  ...['generated/openapi.yaml', 'generated/versions/index.json', 'redocly.yaml', 'package-lock.json', 'scripts/docs.mjs'].map((f) => mtime(join(root, f))),
);
if (docsInputs > mtime(page)) {
  console.log('build: building the docs page (generated/docs/index.html)');
  execFileSync(process.execPath, [join(root, 'scripts', 'docs.mjs')], { cwd: root, stdio: 'inherit' });
}
