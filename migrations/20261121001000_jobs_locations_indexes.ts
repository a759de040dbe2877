import type { Knex } from 'knex';
import { orderIndexes } from '../src/db/schema-helpers';

/** Indexes for the location filters the contract allows and for "earliest attached location" lookups. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('locations', (t) => orderIndexes(t, ['address_line1', 'address_line2']));
  await knex.schema.alterTable('job_locations', (t) => t.index(['organization_id', 'job_id', 'created_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('job_locations', (t) => t.dropIndex(['organization_id', 'job_id', 'created_at']));
  await knex.schema.alterTable('locations', (t) => {
    t.dropIndex(['organization_id', 'address_line1', 'id']);
    t.dropIndex(['organization_id', 'address_line2', 'id']);
  });
}
