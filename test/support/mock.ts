import { join } from 'node:path';
import { freePort } from '../../src/free-port';
import { ROOT } from '../../src/paths';
import { Child, startChild, waitForHttp } from './child';

const mockMain = join(ROOT, 'dist', 'src', 'mock', 'main.js');

/** Starts the mock as `npm run mock` does (extra: Prism options, `-d` for dynamic mode) on a free port; its output is kept. */
export async function startPrism(...extra: string[]): Promise<{ prism: Child; base: string }> {
  const port = await freePort();
  const prism = startChild(process.execPath, [mockMain, '--port', String(port), '--host', '127.0.0.1', ...extra]);
  const base = `http://127.0.0.1:${port}`;
  try {
    // The front answers once Prism does: its /healthz needs no credential.
    await waitForHttp(prism, base + '/healthz', 170_000, 'npm run mock');
  } catch (err) {
    await prism.stop();
    throw err;
  }
  return { prism, base };
}
