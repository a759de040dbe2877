// Builds the kit into client/dist (ESM and .d.mts) with the repository's TypeScript; `npm pack`
// runs it first (prepack). The package's entry is dist/client/src/index.mjs: the generated types
// keep their place beside it (dist/generated/api-types.d.ts).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const dir = resolve(import.meta.dirname, '..');
const tsc = createRequire(resolve(dir, '..', 'package.json')).resolve('typescript/bin/tsc');
rmSync(resolve(dir, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', resolve(dir, 'tsconfig.json')], { stdio: 'inherit' });
