// TypeScript -> dist/ without type-checking, for `npm start`, `npm run mock` and `npm run admin`:
// esbuild turns each changed file into its .js on its own, in about a second for the whole tree
// where `tsc` takes 15-45 s (docs/performance.md, "First start"). That is safe because tsconfig.json
// sets `isolatedModules`: `tsc` (npm test, `npm run build`) refuses any file whose output would need
// another file's types, and it still type-checks everything. A file is transpiled when it is newer
// than its output, or tsconfig.json is; removing dist/ rebuilds everything.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** The .ts files under `path` (a folder or one file), as tsconfig.json's `include` names them. */
function sourcesUnder(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => sourcesUnder(join(path, entry.name)));
}

/** Transpiles the sources newer than their output; returns how many it transpiled (0: nothing to do). */
export async function transpileChanged(root) {
  const tsconfig = join(root, 'tsconfig.json');
  const { include } = JSON.parse(readFileSync(tsconfig, 'utf8'));
  const settings = mtime(tsconfig);
  const output = (source) => join(root, 'dist', relative(root, source).replace(/\.ts$/, '.js'));
  const changed = include
    .flatMap((entry) => sourcesUnder(join(root, entry)))
    .filter((source) => {
      const built = mtime(output(source));
      return built < settings || built < mtime(source);
    });
  if (changed.length === 0) return 0;
  await build({
    entryPoints: changed,
    outdir: join(root, 'dist'),
    outbase: root,
    tsconfig,
    format: 'cjs', // package.json has no "type": the code runs as CommonJS, as tsc's `nodenext` emits it
    platform: 'node',
    target: 'es2022', // tsconfig.json's target
    sourcemap: true,
    logLevel: 'warning',
  });
  return changed.length;
}
