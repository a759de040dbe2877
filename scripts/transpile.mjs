// TypeScript -> dist/ without type-checking, for `npm start`, `npm run mock` and `npm run admin`:
// esbuild turns each changed file into its .js on its own, in about a second for the whole tree
// where `tsc` takes 15-45 s (docs/performance.md, "First start"). That is safe because tsconfig.json
// sets `isolatedModules`: `tsc` (npm test, `npm run build`) refuses any file whose output would need
// another file's types, and it still type-checks everything. A file is transpiled when it is newer
// than its output, or tsconfig.json is; removing dist/ rebuilds everything.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

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
  const { outputFiles } = await build({
    entryPoints: changed,
    write: false,
    outdir: join(root, 'dist'),
    outbase: root,
    tsconfig,
    format: 'cjs', // package.json has no "type": the code runs as CommonJS, as tsc's `nodenext` emits it
    platform: 'node',
    target: 'es2022', // tsconfig.json's target
    sourcemap: true,
    logLevel: 'warning',
  });
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    // What tsc's rewriteRelativeImportExtensions does (tsconfig.json), which esbuild does not: a
    // relative import written with its .ts extension (code Node also runs from source, e.g.
    // src/versions/ from scripts/generate.mjs) requires the .js beside it.
    const text = file.path.endsWith('.js') ? file.text.replace(/require\((["'])(\.{1,2}\/[^"']+)\.ts\1\)/g, 'require($1$2.js$1)') : file.text;
    writeFileSync(file.path, text);
  }
  return changed.length;
}
