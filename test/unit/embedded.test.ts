import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { isPostmasterOf, removeStaleClusters, startEmbedded } from '../../src/db/embedded';
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

  it("signals only a process identified as the cluster's postmaster, not whoever has the PID of a stale postmaster.pid", async () => {
    const root = mkdtempSync(join(DATA_DIR, 'unit-stale-pid-'));
    // A live process that is not PostgreSQL, named by a stale postmaster.pid of a cluster whose run is gone.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const cluster = join(root, `test-${gone}`);
      mkdirSync(cluster);
      writeFileSync(join(cluster, 'postmaster.pid'), `${bystander.pid}\n${cluster}\n0\n5432\n`);
      expect(isPostmasterOf(bystander.pid!, cluster)).to.equal(false);
      removeStaleClusters(root, 'test');
      expect(existsSync(cluster)).to.equal(false);
      await new Promise((r) => setTimeout(r, 200));
      expect(bystander.exitCode).to.equal(null);
      expect(bystander.signalCode).to.equal(null);
    } finally {
      bystander.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('changes no permission above its data folder: as root, a folder the postgres user cannot enter is named, not opened', async () => {
    const above = mkdtempSync(join(DATA_DIR, 'unit-perm-')); // 0700
    try {
      const data = join(above, 'data', 'postgres');
      if (process.getuid?.() === 0) {
        const err = await startEmbedded(data).then(
          (s) => s.stop(),
          (e: Error) => e,
        );
        expect(String((err as Error | undefined)?.message)).to.include(`cannot enter ${above}`);
      }
      expect(statSync(above).mode & 0o777).to.equal(0o700);
    } finally {
      rmSync(above, { recursive: true, force: true });
    }
  });

  it("identifies a running cluster's postmaster by its process and data folder", async () => {
    const data = join(dir, 'postgres-identified');
    const server = await startEmbedded(data);
    try {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(isPostmasterOf(pid, data)).to.equal(true);
      expect(isPostmasterOf(pid, dir)).to.equal(false);
      expect(isPostmasterOf(process.pid, data)).to.equal(false);
    } finally {
      await server.stop();
    }
  });
});
