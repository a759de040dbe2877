import { expect } from 'chai';
import { join } from 'node:path';
import { harness } from './support/harness';
import { startChild } from './support/child';

/*
 * The logs are JSON lines, all of them (issue #42): a worker of graphile-worker's pool that exits
 * with an error while the pool shuts down (its connection lost) is reported through the service's
 * logger only. graphile-worker 0.17.3 also wrote it with console.trace, many lines of plain text
 * on stderr (section 3 of patches/graphile-worker+0.17.3.patch removes that). The scenario runs
 * in a child process (test/support/lost-worker-child.ts) so that the process's whole output is
 * what is judged, stdout and stderr.
 */
describe('graphile-worker’s report of a worker lost with its connection is a JSON log line', function () {
  this.timeout(120_000);

  it('a worker whose job look-up fails while its pool shuts down: one JSON line with the error, nothing else on stdout or stderr', async () => {
    const connectionString = process.env.DATABASE_DIRECT_URL || harness().databaseUrl;
    const child = startChild(process.execPath, [join(__dirname, 'support', 'lost-worker-child.js'), connectionString, `lost-worker-${process.pid}`]);
    let stderr = '';
    child.process.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.process.once('exit', (c) => resolve(c)));
    expect(code, child.output()).to.equal(0);
    expect(stderr, 'stderr').to.equal('');
    const lines = child.output().split('\n').filter(Boolean);
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson, 'lines that are not JSON').to.deep.equal([]);
    const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.component === 'background' && /Worker exited with error/.test(l.msg));
    expect(errors.map((l) => [l.level, l.msg])).to.deep.equal([[50, 'Worker exited with error: Error: Connection terminated unexpectedly']]);
  });
});
