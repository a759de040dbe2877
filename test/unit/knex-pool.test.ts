import { expect } from 'chai';
import { Pool } from 'tarn';
import { createDb } from '../../src/db/knex';
import { fromDatabaseError } from '../../src/db/pg-errors';
import { harness } from '../support/harness';

/** The service's database handle (createDb): knex's own pool, its timeouts, and how the API answers them. */
const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('unit: knex connection pool on PostgreSQL', function () {
  this.timeout(20_000);

  it('serves queries, transactions and concurrent reads', async () => {
    const db = createDb(harness().databaseUrl, 2);
    try {
      const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => db.raw('SELECT ?::int + 1 AS n', [i]).then((r) => r.rows[0].n)));
      expect(sums).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      const inTx = await db.transaction(
        async (trx) => (await trx.raw('SELECT txid_current() AS a')).rows[0].a === (await trx.raw('SELECT txid_current() AS a')).rows[0].a,
      );
      expect(inTx).to.equal(true);
      // knex's own pool (tarn): nothing held once the queries are done.
      const pool = (db.client as { pool: Pool<unknown> }).pool;
      expect(pool).to.be.instanceOf(Pool);
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
