import type { Knex } from 'knex';

/**
 * Shared column conventions for migrations. Every tenant table has a uuid id, the owning
 * organization, millisecond timestamps, and UNIQUE (organization_id, id) so that references
 * between tenant tables can include organization_id (a row can never point into another
 * organization, and a distributed engine can co-locate one organization's rows).
 */
export function tenantTable(t: Knex.CreateTableBuilder, knex: Knex, opts: { softDelete?: boolean } = {}): void {
  t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment("The object's ID in the API.");
  t.uuid('organization_id')
    .notNullable()
    .references('id')
    .inTable('organizations')
    .onDelete('CASCADE')
    .comment('The organization (tenant) the row belongs to; every query is scoped by it.');
  t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the row was created (API createdAt, milliseconds).');
  t.specificType('updated_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the row last changed (API updatedAt, milliseconds).');
  if (opts.softDelete) t.specificType('deleted_at', 'timestamptz(3)').comment('Set when the object is deleted (soft delete); NULL while it is live.');
  t.unique(['organization_id', 'id']);
}

/**
 * A reference to another tenant table, checked within the same organization. `comment` describes
 * the column (COMMENT ON COLUMN); without one it says only which table it references.
 */
export function tenantRef(
  t: Knex.CreateTableBuilder,
  column: string,
  table: string,
  opts: { notNullable?: boolean; onDelete?: 'CASCADE' | 'SET NULL' | 'RESTRICT'; comment?: string } = {},
): void {
  const col = t.uuid(column).comment(opts.comment ?? `References ${table}.id in the same organization.`);
  if (opts.notNullable) col.notNullable();
  const fk = t.foreign(['organization_id', column]).references(['organization_id', 'id']).inTable(table);
  // SET NULL on a composite key would null organization_id too; name the column (PostgreSQL 15+).
  if (opts.onDelete === 'SET NULL') fk.onDelete(`SET NULL (${column})` as 'SET NULL');
  else if (opts.onDelete) fk.onDelete(opts.onDelete);
  t.index(['organization_id', column]);
}

/** Indexes that back the list orderings and range filters the contract allows. */
export function orderIndexes(t: Knex.CreateTableBuilder, columns: string[]): void {
  for (const c of columns) t.index(['organization_id', c, 'id']);
}
