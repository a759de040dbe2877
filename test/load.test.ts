import { expect } from 'chai';
import { harness } from './support/harness';
import { expectStatus, newOrg, TestOrg } from './support/client';
import { fairShareLimit } from '../src/http/fair-share';
import { loadConfig } from '../src/config';

/** Backends of the service waiting for a lock (the test's own lock holder is not waiting). */
/**
 * Sessions waiting for the lock on `jobs` that the test holds: only those (another session may wait
 * for a moment on some row lock, e.g. two requests counting the same rate-limit window).
 */
async function waitingOnLocks(): Promise<number> {
  const r = await harness().db.raw(
    `SELECT count(*)::int AS n FROM pg_locks
      WHERE NOT granted AND locktype = 'relation' AND relation = 'jobs'::regclass
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return r.rows[0].n;
}

async function until(what: string, check: () => Promise<boolean>, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('under load', function () {
  this.timeout(180_000);

  it('40 overlapping job batches with the same 500 codes in opposite orders all succeed (lock order + deadlock retry), none 503', async () => {
    const org = await newOrg();
    const codes = Array.from({ length: 500 }, (_, i) => `LOAD-${String(i).padStart(4, '0')}`);
    const batches = Array.from({ length: 40 }, (_, n) => {
      const ordered = n % 2 === 0 ? codes : [...codes].reverse();
      return ordered.map((code) => ({ code, name: `Job ${code} v${n}` }));
    });
    const answers = await Promise.all(batches.map((inputs) => org.api.post('/jobs/batch', { inputs })));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s !== 200),
      answers.find((a) => a.status !== 200)?.text,
    ).to.deep.equal([]);
    // Each answer lists its jobs in its own input order.
    expect(expectStatus(answers[1], 200).body[0].code).to.equal(codes[499]);
    expect(expectStatus(answers[0], 200).body[0].code).to.equal(codes[0]);
    const n = await harness().db('jobs').where({ organization_id: org.id }).count('* as n');
    expect(n[0].n).to.equal(500);
  });

  describe('fair share', () => {
    let flood: TestOrg;
    let quiet: TestOrg;
    const cap = fairShareLimit(loadConfig().dbPoolMax);

    before(async function () {
      // Counts the service's own database sessions: only meaningful in process.
      if (!harness().inProcess) return this.skip();
      flood = await newOrg();
      quiet = await newOrg();
      expectStatus(await flood.api.post('/jobs', { code: 'F-0', name: 'First' }), 201);
      expectStatus(await quiet.api.post('/jobs', { code: 'Q-1', name: 'Quiet job' }), 201);
    });

    it("one organization holds at most its share of connections; another organization's read is answered while its requests wait", async () => {
      const db = harness().db;
      // Held here, a SHARE lock on jobs lets reads through but makes every job insert wait, holding
      // its connection: each of the flood's writes that reached the database waits there.
      const hold = await db.transaction();
      try {
        await hold.raw('LOCK TABLE jobs IN SHARE MODE');
        const writes = Array.from({ length: 3 * cap }, (_, i) => flood.api.post('/jobs', { code: `F-${i + 1}`, name: `Flood ${i + 1}` }));
        let finished = 0;
        writes.forEach((w) => w.then(() => finished++));
        await until(`${cap} writes waiting on the lock`, async () => (await waitingOnLocks()) >= cap);

        // The quiet organization's read goes through while the flood's requests are held and queued.
        const read = expectStatus(await quiet.api.get('/jobs/Q-1'), 200);
        expect(read.body.code).to.equal('Q-1');
        // Still exactly `cap` of the flood's requests in the database; the rest wait their turn.
        expect(await waitingOnLocks()).to.equal(cap);
        expect(finished).to.equal(0);

        await hold.rollback();
        const answers = await Promise.all(writes);
        expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 201));
      } finally {
        if (!hold.isCompleted()) await hold.rollback();
      }
    });
  });
});
