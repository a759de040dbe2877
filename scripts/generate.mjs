// Builds generated/ from api/: the bundled document (YAML and JSON, filters expanded by the
// Redocly decorator) and the TypeScript types, for the newest version; the same three for every
// older dated version in generated/versions/<version>/, derived from the newest by the
// version-change modules (api/versions/, bundled here by esbuild), and the
// versions' changelog. `--check` builds into a temporary folder and fails when the committed
// files differ, so CI catches a stale generated/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
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

/** One version's bundle (YAML and JSON) and TypeScript types, in `dir` (relative to generated/). */
async function writeVersion(dir, contract) {
  mkdirSync(join(out, dir), { recursive: true });
  writeFileSync(join(out, dir, 'openapi.yaml'), banner + yaml.dump(contract, { lineWidth: -1, noRefs: true }));
  writeFileSync(join(out, dir, 'openapi.json'), JSON.stringify(contract, null, 2) + '\n');
  // The Node API, not the CLI: the CLI would pick up redocly.yaml and want per-API output keys.
  const ast = await openapiTS(structuredClone(contract), { alphabetize: false, defaultNonNullable: false });
  writeFileSync(join(out, dir, 'api-types.ts'), '// GENERATED from api/ by `npm run generate`. Do not edit by hand.\n' + astToString(ast));
}

/**
 * A TypeScript module of ours (the version-change modules and their derivation), bundled by esbuild
 * and loaded from memory: the generation runs on any Node, with or without its type stripping.
 */
async function importTs(path) {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({ entryPoints: [join(root, path)], bundle: true, write: false, format: 'esm', platform: 'node', logLevel: 'warning' });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
}
const { VERSIONS } = await importTs('api/versions/index.ts');
const { versionContracts, changelog } = await importTs('src/versions/derive.ts');
const contracts = versionContracts(doc, VERSIONS);
// Every version's docs end with the versions' changelog (which version changed what), and say which version they describe.
const history = changelog(VERSIONS).replace(/^# API versions/, '# Version history');
for (const { version, contract } of contracts) {
  const which = version === VERSIONS[0].version ? 'the newest' : `an older one (the newest: \`/docs\`)`;
  contract.info = {
    ...contract.info,
    description: `This is API version **${version}**, ${which}; see "Versions".\n\n${contract.info.description}\n${history}`,
  };
}
const files = ['openapi.yaml', 'openapi.json', 'api-types.ts', 'versions/CHANGELOG.md'];
await writeVersion('.', doc);
// The client kit's paging table (client/src/list-paging.mts): how each list pages, from the newest contract.
const { listPaging } = await import('../client/scripts/list-paging.mjs');
const pagingFile = join(check ? out : join(root, 'client', 'src'), 'list-paging.mts');
writeFileSync(pagingFile, listPaging(doc));
files.push('list-paging.mts');
for (const { version, contract } of contracts.slice(1)) {
  await writeVersion(join('versions', version), contract);
  files.push(...['openapi.yaml', 'openapi.json', 'api-types.ts'].map((f) => join('versions', version, f)));
}
mkdirSync(join(out, 'versions'), { recursive: true });
// The versions and their dates, for the CI gate (scripts/breaking-changes.mjs --versions) and tools without TypeScript.
const index = VERSIONS.map(({ version, releasedAt, deprecatedAt, sunsetAt }) => ({
  version,
  releasedAt,
  deprecatedAt: deprecatedAt ?? null,
  sunsetAt: sunsetAt ?? null,
}));
writeFileSync(join(out, 'versions', 'index.json'), JSON.stringify(index, null, 2) + '\n');
files.push('versions/index.json');
writeFileSync(
  join(out, 'versions', 'CHANGELOG.md'),
  '<!-- GENERATED from api/versions/ by `npm run generate`. Do not edit by hand. -->\n' + changelog(VERSIONS),
);

if (check) {
  const stale = files.filter((f) => {
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
