import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { removeStaleClusters, startEmbedded } from '../../src/db/embedded';
import { loadConfig } from '../../src/config';

/** DATA_DIR as the service reads it (src/config.ts). */
const DATA_DIR = loadConfig().dataDir;

/** The embedded PostgreSQL behind `npm start`: a second start on the same folder must work. */
describe('unit: embedded PostgreSQL', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(DATA_DIR, 'unit-embedded-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const query = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query('SELECT 1 AS one')).rows[0].one;
    } finally {
      await client.end();
    }
  };

  it('starts, stops and starts again on the same data folder, which stays private', async () => {
    const data = join(dir, 'postgres');
    const first = await startEmbedded(data);
    expect(await query(first.adminUrl)).to.equal(1);
    await first.stop();
    expect(statSync(data).mode & 0o077).to.be.oneOf([0, 0o050]);
    const second = await startEmbedded(data);
    expect(await query(second.adminUrl)).to.equal(1);
    await second.stop();
  });

  it('reuses a server that is already running on the folder', async () => {
    const data = join(dir, 'postgres-reuse');
    const first = await startEmbedded(data);
    const again = await startEmbedded(data);
    expect(again.adminUrl).to.equal(first.adminUrl);
    await again.stop();
    expect(await query(first.adminUrl)).to.equal(1);
    await first.stop();
  });

  it('removes the scratch clusters of runs that are gone, and only those', () => {
    const root = mkdtempSync(join(DATA_DIR, 'unit-stale-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', '']).pid; // a process that has exited
      const names = [`test-${gone}`, `test-${process.pid}`, `proxy-${gone}`, 'test-notapid', 'postgres'];
      for (const name of names) mkdirSync(join(root, name));
      removeStaleClusters(root, 'test');
      expect(names.filter((name) => existsSync(join(root, name)))).to.deep.equal([`test-${process.pid}`, `proxy-${gone}`, 'test-notapid', 'postgres']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
