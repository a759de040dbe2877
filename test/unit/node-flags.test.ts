import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, serviceNodeFlags } from '../../src/paths';

/**
 * The service's node options live in one place (package.json `config.nodeFlags`): the start scripts
 * pass them, and what else starts the compiled service (the benchmark, the tests) reads them there.
 */
describe('unit: the node options of the service', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; config: { nodeFlags: string } };

  it('bound the young generation (peak memory under bulk pages; README, Operating it)', () => {
    expect(serviceNodeFlags()).to.deep.equal(pkg.config.nodeFlags.split(' '));
    expect(serviceNodeFlags()).to.include('--max-semi-space-size=8');
  });

  it('are passed by npm start and npm run start:prod', () => {
    for (const script of ['start', 'start:prod']) expect(pkg.scripts[script]).to.match(/node \$npm_package_config_nodeFlags dist\/src\/server\.js$/);
  });

  it('are accepted by this node', () => {
    const run = spawnSync(process.execPath, [...serviceNodeFlags(), '-e', 'process.exit(0)']);
    expect(run.status, String(run.stderr)).to.equal(0);
  });
});
