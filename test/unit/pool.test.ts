import { expect } from 'chai';
import { TimeoutError } from 'tarn';
import { LightPool, PoolOptions } from '../../src/db/pool';
import { createDb } from '../../src/db/knex';
import { fromDatabaseError } from '../../src/db/pg-errors';
import { harness } from '../support/harness';

/** A connection stand-in: `valid` false makes the pool's validation refuse it. */
interface Conn {
  id: number;
  valid: boolean;
  closed: boolean;
}

function fakePool(options: Partial<PoolOptions<Conn>> = {}) {
  const created: Conn[] = [];
  let failNext = 0;
  const pool = new LightPool<Conn>({
    min: 0,
    max: 2,
    acquireTimeoutMillis: 200,
    create: async () => {
      await new Promise((r) => setTimeout(r, 5));
      if (failNext > 0) {
        failNext--;
        throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      }
      const conn = { id: created.length + 1, valid: true, closed: false };
      created.push(conn);
      return conn;
    },
    destroy: (conn) => {
      conn.closed = true;
    },
    validate: async (conn) => conn.valid,
    ...options,
  });
  return { pool, created, failNextCreates: (n: number) => (failNext = n) };
}

const settle = <T>(p: Promise<T>) => p.then((value) => ({ value }), (error: unknown) => ({ error }));

describe('unit: connection pool', () => {
  it('reuses a released connection instead of opening another', async () => {
    const { pool, created } = fakePool();
    for (let i = 0; i < 5; i++) {
      const conn = await pool.acquire().promise;
      expect(conn.id).to.equal(1);
      expect(pool.release(conn)).to.equal(true);
    }
    expect(created).to.have.length(1);
    expect(pool.numFree()).to.equal(1);
    expect(pool.numUsed()).to.equal(0);
    await pool.destroy();
    expect(created[0].closed).to.equal(true);
  });

  it('never opens more than max; waiting acquires are served in order as connections come back', async () => {
    const { pool, created } = fakePool({ max: 2, acquireTimeoutMillis: 2000 });
    const a = await pool.acquire().promise;
    const b = await pool.acquire().promise;
    const order: number[] = [];
    const third = pool.acquire().promise.then((c) => (order.push(3), c));
    const fourth = pool.acquire().promise.then((c) => (order.push(4), c));
    await new Promise((r) => setTimeout(r, 30));
    expect(created).to.have.length(2);
    expect(pool.numPendingAcquires()).to.equal(2);
    pool.release(a);
    expect(await third).to.equal(a);
    pool.release(b);
    expect(await fourth).to.equal(b);
    expect(order).to.deep.equal([3, 4]);
    expect(created).to.have.length(2);
    pool.release(a);
    pool.release(b);
    await pool.destroy();
  });

  it("times out an acquire that waits too long with tarn's TimeoutError, and forgets it", async () => {
    const { pool } = fakePool({ max: 1, acquireTimeoutMillis: 50 });
    const held = await pool.acquire().promise;
    const started = Date.now();
    const waited = await settle(pool.acquire().promise);
    expect(Date.now() - started).to.be.within(40, 1000);
    expect((waited as { error: unknown }).error).to.be.instanceOf(TimeoutError);
    expect(pool.numPendingAcquires()).to.equal(0);
    // The connection it did not get goes back to the free list, not to the timed-out acquire.
    pool.release(held);
    expect(pool.numFree()).to.equal(1);
    await pool.destroy();
  });

  it('hands a failed connect to the waiting acquire at once, and opens afresh for the next one', async () => {
    const { pool, failNextCreates } = fakePool();
    failNextCreates(1);
    const first = await settle(pool.acquire().promise);
    expect(String((first as { error: Error }).error.message)).to.match(/ECONNREFUSED/);
    const conn = await pool.acquire().promise;
    expect(conn.id).to.equal(1);
    pool.release(conn);
    await pool.destroy();
  });

  it('retries the connect for acquires still waiting after one failed', async () => {
    const { pool, failNextCreates } = fakePool({ max: 1, acquireTimeoutMillis: 2000, createRetryIntervalMillis: 20 });
    failNextCreates(1);
    const [a, b] = await Promise.all([settle(pool.acquire().promise), settle(pool.acquire().promise)]);
    expect((a as { error: Error }).error.message).to.match(/ECONNREFUSED/);
    const conn = (b as { value: Conn }).value;
    expect(conn.id).to.equal(1);
    pool.release(conn);
    await pool.destroy();
  });

  it('closes a connection that fails validation and hands out a new one', async () => {
    const { pool, created } = fakePool();
    const first = await pool.acquire().promise;
    pool.release(first);
    first.valid = false;
    const next = await pool.acquire().promise;
    expect(next).to.not.equal(first);
    expect(first.closed).to.equal(true);
    expect(created).to.have.length(2);
    pool.release(next);
    await pool.destroy();
  });

  it('refuses to take back a connection it did not hand out', async () => {
    const { pool } = fakePool();
    expect(pool.release({ id: 99, valid: true, closed: false })).to.equal(false);
    const conn = await pool.acquire().promise;
    expect(pool.release(conn)).to.equal(true);
    expect(pool.release(conn)).to.equal(false);
    await pool.destroy();
  });

  it('closes connections idle longer than idleTimeoutMillis, keeping min', async () => {
    const { pool } = fakePool({ max: 3, min: 1, idleTimeoutMillis: 30, reapIntervalMillis: 10, acquireTimeoutMillis: 2000 });
    const conns = await Promise.all([pool.acquire().promise, pool.acquire().promise, pool.acquire().promise]);
    conns.forEach((c) => pool.release(c));
    expect(pool.numFree()).to.equal(3);
    await new Promise((r) => setTimeout(r, 120));
    expect(pool.numFree()).to.equal(1);
    expect(conns.filter((c) => c.closed)).to.have.length(2);
    await pool.destroy();
  });

  it('on destroy: refuses waiting acquires, waits for connections in use, then closes all', async () => {
    const { pool, created } = fakePool({ max: 1, acquireTimeoutMillis: 5000 });
    const held = await pool.acquire().promise;
    const waiting = settle(pool.acquire().promise);
    let destroyed = false;
    const destroying = pool.destroy().then(() => (destroyed = true));
    expect(((await waiting) as { error: Error }).error.message).to.equal('aborted');
    await new Promise((r) => setTimeout(r, 20));
    expect(destroyed).to.equal(false);
    pool.release(held);
    await destroying;
    expect(created.every((c) => c.closed)).to.equal(true);
    expect(((await settle(pool.acquire().promise)) as { error: Error }).error.message).to.equal('aborted');
  });

  describe('under knex, on PostgreSQL', function () {
    this.timeout(20_000);

    it('is the pool knex uses, and serves queries, transactions and concurrent reads', async () => {
      const db = createDb(harness().databaseUrl, 2);
      try {
        expect((db.client as { pool: unknown }).pool).to.be.instanceOf(LightPool);
        const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => db.raw('SELECT ?::int + 1 AS n', [i]).then((r) => r.rows[0].n)));
        expect(sums).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
        const inTx = await db.transaction(async (trx) => (await trx.raw('SELECT txid_current() AS a')).rows[0].a === (await trx.raw('SELECT txid_current() AS a')).rows[0].a);
        expect(inTx).to.equal(true);
        const pool = (db.client as { pool: LightPool<unknown> }).pool;
        expect(pool.numUsed()).to.equal(0);
        expect(pool.numFree()).to.be.within(1, 2);
      } finally {
        await db.destroy();
      }
    });

    it("turns a full pool into knex's timeout error, which the API answers 503", async () => {
      const db = createDb(harness().databaseUrl, 1, 100);
      try {
        await db.raw('SELECT 1');
        // knex runs a query once it is awaited or then'd.
        const holding = db.raw('SELECT pg_sleep(0.5)').then(() => undefined);
        await new Promise((r) => setTimeout(r, 20));
        const waited = await settle(db.raw('SELECT 1'));
        const error = (waited as { error: Error }).error;
        expect(error.name).to.equal('KnexTimeoutError');
        expect(error.message).to.match(/^Knex: Timeout acquiring a connection/);
        expect(fromDatabaseError(error).status).to.equal(503);
        await holding;
        expect((await db.raw('SELECT 2 AS n')).rows[0].n).to.equal(2);
      } finally {
        await db.destroy();
      }
    });

    it('answers a database that cannot be reached at once, with a 503', async () => {
      const db = createDb('postgres://postgres@127.0.0.1:1/none', 2);
      try {
        const started = Date.now();
        const error = ((await settle(db.raw('SELECT 1'))) as { error: Error }).error;
        expect(Date.now() - started).to.be.below(5000);
        expect(fromDatabaseError(error).status).to.equal(503);
      } finally {
        await db.destroy();
      }
    });
  });
});
