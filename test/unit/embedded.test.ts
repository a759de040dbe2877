import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../../src/db/embedded';
import { DATA_DIR } from '../../src/paths';

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
});
