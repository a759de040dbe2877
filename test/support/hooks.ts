import { startHarness, stopHarness } from './harness';
import { printCoverageReport } from './coverage-report';
// knex's warnings are kept, not printed (asserted where a test provokes them).
import './db-warnings';

/** mocha root hooks (.mocharc.json `require`): one server and database for the whole run. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await startHarness();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    const gap = printCoverageReport();
    await stopHarness();
    if (gap) throw new Error(gap);
  },
};
