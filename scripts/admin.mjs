// `npm run admin -- <command>`: runs the compiled CLI (dist/src/admin/cli.js). It first transpiles
// the sources changed since the last build, as `npm start` does (scripts/transpile.mjs: esbuild, no
// type-checking, nothing when none changed), so a call costs the command, not a TypeScript build.
// Where only the production dependencies are installed it runs the build it finds.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'dist', 'src', 'admin', 'cli.js');

if (existsSync(join(root, 'node_modules', 'esbuild'))) {
  const { transpileChanged } = await import('./transpile.mjs');
  const transpiled = await transpileChanged(root).catch(() => process.exit(1)); // esbuild has printed its errors
  if (transpiled > 0) console.error(`admin: transpiled ${transpiled} changed TypeScript file${transpiled === 1 ? '' : 's'}`);
} else if (!existsSync(cli)) {
  console.error('admin: dist/ is missing and the devDependencies are not installed here: run `npm run build` where they are.');
  process.exit(1);
}
await import(pathToFileURL(cli).href);
