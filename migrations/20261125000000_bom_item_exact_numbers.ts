import type { Knex } from 'knex';

/**
 * A bill-of-materials item's estimated quantity and unit price are stored as given.
 *
 * Both columns were `numeric(8,2)` (knex's default precision for `t.decimal`): a quantity or a
 * price of 1,000,000 or more overflowed (the API answered a generic 400 naming no field) and a
 * unit price was rounded to cents (0.0575 a foot became 0.06). `numeric` without a precision keeps
 * every value the API accepts exactly; the service bounds both at 10^12, as it bounds every
 * quantity and price (src/resources/bills-of-materials/rules.ts). Their check constraints and
 * indexes stay; PostgreSQL rebuilds the indexes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bill_of_materials_items', (t) => {
    t.decimal('estimated_quantity', null)
      .notNullable()
      .comment('API field `estimatedQuantity`: estimated quantity, a whole number >= 0 (at most 10^12), stored as given.')
      .alter();
    t.decimal('unit_price', null)
      .comment('API field `unitPrice`: estimated unit price in dollars, >= 0 (at most 10^12), stored as given; NULL when not estimated.')
      .alter();
  });
}

/** Back to numeric(8,2): values are rounded to cents, and a value of 10^6 or more makes it fail (nothing is truncated silently). */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bill_of_materials_items', (t) => {
    t.decimal('estimated_quantity').notNullable().comment('API field `estimatedQuantity`: estimated quantity, a whole number >= 0.').alter();
    t.decimal('unit_price').comment('API field `unitPrice`: estimated unit price in dollars, >= 0; NULL when not estimated.').alter();
  });
}
