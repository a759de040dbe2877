import { expect } from 'chai';
import { harness } from './support/harness';
import { createDb } from '../src/db/knex';
import { dropDatabase, ensureDatabase } from '../src/db/embedded';

/** Every migration can be undone and redone: all down() in reverse order, then up() again, on a scratch database. */
describe('migrations', function () {
  this.timeout(120_000);
  const name = `procurement_migrations_${process.pid}`;

  after(async () => {
    await dropDatabase(harness().databaseUrl, name).catch(() => undefined);
  });

  it('runs every down() and then every up() again', async () => {
    const db = createDb(await ensureDatabase(harness().databaseUrl, name), 2);
    try {
      await db.migrate.latest();
      const [, all] = (await db.migrate.list()) as [unknown[], unknown[]];
      expect(all).to.have.length(0);
      const tables = async () =>
        (await db('information_schema.tables').where({ table_schema: 'public' }).whereNot('table_name', 'like', 'knex_migrations%').pluck('table_name')).sort();
      const before = await tables();
      expect(before.length).to.be.above(20);

      await db.migrate.rollback(undefined, true);
      expect(await tables()).to.deep.equal([]);

      await db.migrate.latest();
      expect(await tables()).to.deep.equal(before);
    } finally {
      await db.destroy();
    }
  });
});
