// `npm run docs`: the Redoc page, self-contained (the Redoc script inlined), into
// generated/docs/index.html. `npm start` runs it (through scripts/build.mjs) only when its inputs changed.
import { join, resolve } from 'node:path';
import { runQuietly } from './quiet.mjs';

const root = resolve(import.meta.dirname, '..');
process.exit(
  runQuietly(join(root, 'node_modules', '.bin', 'redocly'), [
    'build-docs',
    join(root, 'generated', 'openapi.yaml'),
    '--inlineBundle',
    '--output',
    join(root, 'generated', 'docs', 'index.html'),
    '--title',
    'Construction Procurement API',
  ]),
);
