import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project root (the folder holding package.json), whether running from src/ or dist/. */
function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + start);
    dir = parent;
  }
  return dir;
}

export const ROOT = findRoot(__dirname);
/** Where the embedded PostgreSQL and the generated JWT secret live unless DATA_DIR says otherwise (config.ts). */
export const DEFAULT_DATA_DIR = join(ROOT, '.data');
export const GENERATED_DIR = join(ROOT, 'generated');
