import { expect } from 'chai';
import { harness } from './support/harness';
import { createDb } from '../src/db/knex';
import { dropDatabase, ensureDatabase } from '../src/db/embedded';

/**
 * Every migration can be undone and redone: all down() in reverse order, then up() again, on a
 * scratch database; and every table and column the migrations create carries a comment.
 */
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

      // Every table and every column is described in the database (knex's .comment() / t.comment(),
      // or COMMENT ON in the migration that creates it). Only migrations create tables in public:
      // rate_limits is ours (rate-limiter-flexible runs with tableCreated: true, so it never runs
      // DDL), and graphile-worker keeps its tables in its own schema graphile_worker, which is not
      // checked. A library that created a table in public at run time would be listed here by name.
      const notOurs: string[] = [];
      const uncommentedColumns = (
        await db('information_schema.columns as c')
          .join('information_schema.tables as tb', (j) => j.on('tb.table_schema', 'c.table_schema').andOn('tb.table_name', 'c.table_name'))
          .where({ 'c.table_schema': 'public', 'tb.table_type': 'BASE TABLE' })
          .whereNot('c.table_name', 'like', 'knex_migrations%')
          .whereNotIn('c.table_name', notOurs)
          .whereRaw(`col_description(format('%I.%I', c.table_schema, c.table_name)::regclass, c.ordinal_position) IS NULL`)
          .orderBy(['c.table_name', 'c.ordinal_position'])
          .select(db.raw(`c.table_name || '.' || c.column_name AS col`))
      ).map((r: { col: string }) => r.col);
      expect(uncommentedColumns, `columns without a comment: ${uncommentedColumns.join(', ')}`).to.deep.equal([]);

      const uncommentedTables = (
        await db('pg_class as c')
          .join('pg_namespace as n', 'n.oid', 'c.relnamespace')
          .where({ 'n.nspname': 'public', 'c.relkind': 'r' })
          .whereNot('c.relname', 'like', 'knex_migrations%')
          .whereNotIn('c.relname', notOurs)
          .whereRaw(`obj_description(c.oid, 'pg_class') IS NULL`)
          .orderBy('c.relname')
          .pluck('c.relname')
      ).map(String);
      expect(uncommentedTables, `tables without a comment: ${uncommentedTables.join(', ')}`).to.deep.equal([]);
    } finally {
      await db.destroy();
    }
  });
});
