import { expect } from 'chai';
import type { Knex } from 'knex';
import { harness } from './support/harness';
import { newOrg, type TestOrg } from './support/client';
import { call, startInstance, type Instance } from './support/instance';

/**
 * The fair share adapts to the organizations busy (src/http/fair-share.ts): however many are
 * saturating the service, another organization's request finds a connection. Requests hold their
 * connections here on row locks this test holds, not on timing.
 */
describe('fair share: busy organizations leave room for another', function () {
  this.timeout(120_000);
  let instance: Instance;
  const locks: Knex.Transaction[] = [];

  before(async () => {
    // A pool of 4 and a 1.5 s wait for a connection: a lone organization's share is 2.
    instance = await startInstance();
  });
  after(async () => {
    for (const trx of locks) await trx.rollback().catch(() => undefined);
    await instance?.close();
  });

  /** An organization with a tax code this test holds a row lock on, and its id. */
  async function lockedTaxCode(org: TestOrg, code: string): Promise<string> {
    const created = await call(instance.baseUrl, 'POST', '/tax-codes', { token: org.apiKey, body: { code, description: 'Held', taxPercent: 0.01 } });
    expect(created.status, created.text).to.equal(201);
    const trx = await harness().db.transaction();
    locks.push(trx);
    await trx('tax_codes').where({ id: created.body.id }).forUpdate().first('id');
    return created.body.id;
  }

  /** Sessions of this database waiting on a lock in an update of tax codes. */
  async function waitingOnLocks(): Promise<number> {
    const r = await harness().db.raw(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%tax_codes%'",
    );
    return r.rows[0].n;
  }

  async function until(condition: () => Promise<boolean>): Promise<void> {
    while (!(await condition())) await new Promise((r) => setTimeout(r, 50));
  }

  it("with two organizations' requests holding connections, a third organization's read is served", async () => {
    const [a, b, c] = [await newOrg(), await newOrg(), await newOrg()];
    const [aCode, bCode] = [await lockedTaxCode(a, 'HELD-A'), await lockedTaxCode(b, 'HELD-B')];
    const update = (org: TestOrg, id: string, i: number) =>
      call(instance.baseUrl, 'PATCH', `/tax-codes/${id}`, { token: org.apiKey, body: { description: `Update ${i}` }, timeoutMs: 60_000 });
    // a, alone, takes its share of the pool (2 of 4) with updates waiting on the lock.
    const aUpdates = Array.from({ length: 6 }, (_, i) => update(a, aCode, i));
    await until(async () => (await waitingOnLocks()) === 2);
    // b too: with two organizations busy, its share leaves a connection free.
    const bUpdates = Array.from({ length: 6 }, (_, i) => update(b, bCode, i));
    await until(async () => (await waitingOnLocks()) >= 3);

    // A fixed share of half the pool gave b 2 connections: c's read waited for the pool's timeout (503).
    const read = await call(instance.baseUrl, 'GET', '/tax-codes', { token: c.apiKey });
    expect(read.status, read.text).to.equal(200);
    expect(await waitingOnLocks()).to.equal(3);

    for (const trx of locks.splice(0)) await trx.rollback();
    for (const res of await Promise.all([...aUpdates, ...bUpdates])) expect(res.status, res.text).to.equal(200);
  });

  it("answers an organization's single read while its share is taken and its other requests wait (a coalesced read is not held to the share)", async () => {
    const a = await newOrg();
    const held = await lockedTaxCode(a, 'HELD-R');
    const other = await call(instance.baseUrl, 'POST', '/tax-codes', { token: a.apiKey, body: { code: 'FREE-R', description: 'Free', taxPercent: 0.02 } });
    expect(other.status, other.text).to.equal(201);
    const updates = Array.from({ length: 4 }, (_, i) =>
      call(instance.baseUrl, 'PATCH', `/tax-codes/${held}`, { token: a.apiKey, body: { description: `Update ${i}` }, timeoutMs: 60_000 }),
    );
    // Its share (2 of the pool of 4) waits on the lock; its two other updates wait for a turn.
    await until(async () => (await waitingOnLocks()) === 2);
    // A single read by code and by ID goes through at once, on a connection the share leaves.
    for (const key of ['FREE-R', other.body.id]) {
      const read = await call(instance.baseUrl, 'GET', `/tax-codes/${key}`, { token: a.apiKey, timeoutMs: 10_000 });
      expect(read.status, read.text).to.equal(200);
      expect(read.body).to.include({ code: 'FREE-R' });
    }
    expect(await waitingOnLocks()).to.equal(2);

    for (const trx of locks.splice(0)) await trx.rollback();
    for (const res of await Promise.all(updates)) expect(res.status, res.text).to.equal(200);
  });
});
