// `npm run docs`: the Redoc page, self-contained (the Redoc script inlined), into
// generated/docs/index.html (or the path given: `node scripts/docs.mjs <output>`, as the docs tests
// build it). `npm start` runs it (through scripts/build.mjs) only when its inputs changed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runQuietly } from './quiet.mjs';

const root = resolve(import.meta.dirname, '..');
const output = process.argv[2] ? resolve(process.argv[2]) : join(root, 'generated', 'docs', 'index.html');
/** One contract's Redoc page, self-contained. */
function build(contract, page, title) {
  const status = runQuietly(join(root, 'node_modules', '.bin', 'redocly'), ['build-docs', contract, '--inlineBundle', '--output', page, '--title', title]);
  if (status !== 0) process.exit(status);
  withoutCdn(page);
}

// Redoc 3 hard-codes its "API docs by Redocly" badge logo as an image on cdn.redoc.ly, the one thing
// the page would load from another host (a reader's address leaks to Redocly, and the page's
// Content-Security-Policy blocks it). An empty inline SVG takes its place: the badge shows no logo.
const CDN_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";
function withoutCdn(page) {
  const html = readFileSync(page, 'utf8').replace(CDN_LOGO, EMPTY_SVG);
  if (/cdn\.redoc\.ly/.test(html)) {
    console.error('docs: the built page still refers to cdn.redoc.ly (a new Redoc?); make scripts/docs.mjs replace it');
    process.exit(1);
  }
  writeFileSync(page, html);
}

build(join(root, 'generated', 'openapi.yaml'), output, 'Construction Procurement API');
// Each older API version's page beside it (generated/docs/<version>.html, served at /docs/<version>).
if (!process.argv[2]) {
  const versions = JSON.parse(readFileSync(join(root, 'generated', 'versions', 'index.json'), 'utf8'));
  for (const { version } of versions.slice(1)) {
    build(
      join(root, 'generated', 'versions', version, 'openapi.yaml'),
      join(root, 'generated', 'docs', `${version}.html`),
      `Construction Procurement API ${version}`,
    );
  }
}
