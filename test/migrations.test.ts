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

      // Columns are described in the database (COMMENT ON COLUMN via knex's .comment()): the
      // shared tenant columns of every tenant table, every column of the credential tables.
      const uncommented = async (where: (q: any) => void) =>
        (
          await db('information_schema.columns as c')
            .where({ 'c.table_schema': 'public' })
            .whereNot('c.table_name', 'like', 'knex_migrations%')
            .modify(where)
            .whereRaw(`col_description(format('%I.%I', c.table_schema, c.table_name)::regclass, c.ordinal_position) IS NULL`)
            .select(db.raw(`c.table_name || '.' || c.column_name AS col`))
        ).map((r: { col: string }) => r.col);
      const tenantTables = db('information_schema.columns').where({ table_schema: 'public', column_name: 'updated_at' }).select('table_name');
      expect(
        await uncommented((q) =>
          q
            .whereIn('c.column_name', ['id', 'organization_id', 'created_at', 'updated_at'])
            .whereIn('c.table_name', tenantTables)
            .whereNotIn('c.table_name', ['change_feed', 'feed_heads', 'outbox_emails']),
        ),
      ).to.deep.equal([]);
      expect(await uncommented((q) => q.whereIn('c.table_name', ['organizations', 'api_keys', 'oauth_clients']))).to.deep.equal([]);
    } finally {
      await db.destroy();
    }
  });
});
