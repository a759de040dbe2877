// Builds generated/ from api/: the bundled document (YAML and JSON, filters expanded by the
// Redocly decorator) and the TypeScript types. `--check` builds into a temporary folder and fails
// when the committed files differ, so CI catches a stale generated/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as yaml from 'js-yaml';
import openapiTS, { astToString } from 'openapi-typescript';

const root = resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');
const out = check ? mkdtempSync(join(tmpdir(), 'generated-')) : join(root, 'generated');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const banner = '# GENERATED from api/ by `npm run generate`. Do not edit by hand.\n';

const bundled = join(out, 'openapi.raw.yaml');
execFileSync(bin('redocly'), ['bundle', 'api/openapi.yaml', '-o', bundled], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
const doc = yaml.load(readFileSync(bundled, 'utf8'));
rmSync(bundled);
writeFileSync(join(out, 'openapi.yaml'), banner + yaml.dump(doc, { lineWidth: -1, noRefs: true }));
writeFileSync(join(out, 'openapi.json'), JSON.stringify(doc, null, 2) + '\n');
// The Node API, not the CLI: the CLI would pick up redocly.yaml and want per-API output keys.
const ast = await openapiTS(structuredClone(doc), { alphabetize: false, defaultNonNullable: false });
writeFileSync(join(out, 'api-types.ts'), '// GENERATED from api/ by `npm run generate`. Do not edit by hand.\n' + astToString(ast));
// The client kit's paging table (client/src/list-paging.mts): how each list pages, from the contract.
const { listPaging } = await import('../client/scripts/list-paging.mjs');
const pagingFile = join(check ? out : join(root, 'client', 'src'), 'list-paging.mts');
writeFileSync(pagingFile, listPaging(doc));

if (check) {
  const stale = ['openapi.yaml', 'openapi.json', 'api-types.ts', 'list-paging.mts'].filter((f) => {
    const committed = f === 'list-paging.mts' ? join(root, 'client', 'src', f) : join(root, 'generated', f);
    return !existsSync(committed) || readFileSync(committed, 'utf8') !== readFileSync(join(out, f), 'utf8');
  });
  rmSync(out, { recursive: true, force: true });
  if (stale.length) {
    console.error(`generated/ is stale (${stale.join(', ')}): run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  // Current: silent, like every step of npm test that passes.
}
