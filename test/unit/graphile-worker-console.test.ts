import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/paths';

/**
 * The log is JSON lines, all of them: graphile-worker's own console output of a worker lost with
 * its connection (a multi-line console.trace of the error, besides the logger's line) is patched
 * out, section 3 of patches/graphile-worker+0.17.3.patch. The installed copy is the one that runs.
 */
describe('graphile-worker writes through our logger (unit)', () => {
  const dist = (file: string) => readFileSync(join(ROOT, 'node_modules', 'graphile-worker', 'dist', file), 'utf8');

  it('reports a worker that exited with an error through the logger only (no console.trace)', () => {
    const main = dist('main.js');
    expect(main).to.not.include('console.trace(');
    expect(main).to.include('logger.error(`Worker exited with error: ${error}`, { error });');
  });

  it("reports the queue-name look-up's internal error through the logger (no console.error)", () => {
    const helpers = dist('helpers.js');
    expect(helpers).to.not.match(/console\.(error|log|warn|trace)\(/);
    expect(helpers).to.include('compiledSharedOptions.logger.error(`Graphile Worker Internal Error');
  });
});
