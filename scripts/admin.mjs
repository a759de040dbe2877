// `npm run admin -- <command>`: runs the compiled CLI (dist/src/admin/cli.js). It compiles first
// only when there is no build or a source file changed since the last one, so a call costs the
// command, not a TypeScript build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'dist', 'src', 'admin', 'cli.js');

/** The newest modification time of the TypeScript sources the CLI is built from. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const sources = ['src', 'seeds', 'migrations'].map((d) => join(root, d)).filter(existsSync);
const stale = !existsSync(cli) || Math.max(statSync(join(root, 'tsconfig.json')).mtimeMs, ...sources.map(newestSource)) > statSync(cli).mtimeMs;
if (stale) {
  if (!existsSync(join(root, 'node_modules', '.bin', 'tsc'))) {
    console.error('admin: dist/ is missing or older than src/, and TypeScript is not installed here: run `npm run build` where it is.');
    process.exit(1);
  }
  console.error('admin: compiling (src/ changed since the last build)…');
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', root], { stdio: 'inherit' });
}
await import(pathToFileURL(cli).href);
