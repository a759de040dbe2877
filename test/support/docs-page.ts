import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/http/docs';
import { ROOT } from '../../src/paths';

const run = promisify(execFile);

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Skips the calling suite when Debian's chromium is missing on a developer machine; in CI (which
 * installs it, .ci/run) a missing browser is an error.
 */
export function requireChromium(ctx: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  if (process.env.CI) throw new Error(`Chromium is required in CI (${CHROMIUM} is missing)`);
  console.warn(`    (skipped: ${CHROMIUM} not installed; apt-get install chromium)`);
  ctx.skip();
}

export interface DocsPage {
  /** The built page (index.html) in a temporary folder. */
  file: string;
  dir: string;
  /** Where the page is served: every path answers with the page, as Redoc routes per tag. */
  base: string;
  close(): Promise<void>;
}

/**
 * Builds the Redoc page with `scripts/docs.mjs`, as `npm run docs` does (redocly.yaml applies), from the bundle into a
 * temporary folder and serves it on 127.0.0.1, the way a writer would host it.
 */
export async function buildAndServeDocsPage(): Promise<DocsPage> {
  const dir = mkdtempSync(join(tmpdir(), 'docs-'));
  const file = join(dir, 'index.html');
  await run(process.execPath, [join(ROOT, 'scripts', 'docs.mjs'), file], { cwd: ROOT });
  const html = readFileSync(file);
  const server = createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    // The policy the service sends with the page: a violation shows as a console error.
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    file,
    dir,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
