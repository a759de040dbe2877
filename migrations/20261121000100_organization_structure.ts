import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

const LOCATION_TYPES = `'Billing','Branch','Jobsite','Office','Other','Warehouse','Will_Call'`;
const TAG_COLORS = `'#ff85c0','#ff7875','#ff9c6e','#ffc069','#ffd666','#d3f261','#95de64','#5cdbd3','#69b1ff','#85a5ff','#b37feb','#f0f0f0'`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('groups', (t) => {
    tenantTable(t, knex, { softDelete: true });
    t.text('code');
    t.text('name').notNullable();
    tenantRef(t, 'created_by_id', 'users', { onDelete: 'SET NULL' });
    orderIndexes(t, ['code', 'created_at', 'name', 'updated_at']);
  });
  await knex.raw('CREATE UNIQUE INDEX groups_org_code_unique ON groups (organization_id, code) WHERE deleted_at IS NULL AND code IS NOT NULL');

  await knex.schema.createTable('locations', (t) => {
    tenantTable(t, knex, { softDelete: true });
    t.text('name').notNullable();
    t.text('address_line1');
    t.text('address_line2');
    t.text('city');
    t.text('state');
    t.text('zipcode');
    t.text('directions');
    t.text('phone');
    t.text('type').notNullable();
    tenantRef(t, 'default_tax_code_id', 'tax_codes', { onDelete: 'SET NULL' });
    t.double('latitude');
    t.double('longitude');
    // Who may see the location. ROLE (role-based) is configured only in the application.
    t.text('visibility').notNullable().defaultTo('ALL');
    // LocationIntegrationDataInput: opaque data of the integrating system.
    t.jsonb('integration_data');
    t.check(`type IN (${LOCATION_TYPES})`);
    orderIndexes(t, ['created_at', 'name', 'updated_at', 'city', 'state', 'zipcode', 'type']);
  });

  await knex.schema.createTable('vendor_types', (t) => {
    tenantTable(t, knex);
    t.text('name').notNullable();
    t.unique(['organization_id', 'name']);
  });

  await knex.schema.createTable('vendors', (t) => {
    tenantTable(t, knex, { softDelete: true });
    t.text('code').notNullable();
    t.text('name').notNullable();
    tenantRef(t, 'location_id', 'locations', { onDelete: 'SET NULL' });
    tenantRef(t, 'vendor_type_id', 'vendor_types', { onDelete: 'SET NULL' });
    // The seller organization this vendor record stands for (seller lookup of orders); crosses
    // tenants on purpose, so it references organizations directly.
    t.uuid('seller_organization_id').references('id').inTable('organizations').onDelete('SET NULL');
    orderIndexes(t, ['code', 'created_at', 'name', 'updated_at']);
    t.index(['seller_organization_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX vendors_org_code_unique ON vendors (organization_id, code) WHERE deleted_at IS NULL');

  await knex.schema.createTable('jobs', (t) => {
    tenantTable(t, knex);
    t.text('code').notNullable();
    t.text('name').notNullable();
    tenantRef(t, 'default_location_id', 'locations', { onDelete: 'SET NULL' });
    tenantRef(t, 'default_tax_code_id', 'tax_codes', { onDelete: 'SET NULL' });
    t.specificType('start_date', 'timestamptz(3)');
    t.text('state').notNullable().defaultTo('OPEN');
    // The number the job's next purchase order gets (see src/resources/jobs/po-counter.ts).
    t.integer('next_po_counter').notNullable().defaultTo(1);
    t.check(`state IN ('OPEN','CLOSED')`);
    t.unique(['organization_id', 'code']);
    orderIndexes(t, ['created_at', 'name', 'start_date', 'updated_at', 'state']);
  });

  for (const [table, column, target] of [
    ['job_groups', 'group_id', 'groups'],
    ['job_locations', 'location_id', 'locations'],
    ['job_users', 'user_id', 'users'],
  ] as const) {
    await knex.schema.createTable(table, (t) => {
      t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
      t.uuid('job_id').notNullable();
      t.uuid(column).notNullable();
      t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now());
      t.primary(['organization_id', 'job_id', column]);
      t.foreign(['organization_id', 'job_id']).references(['organization_id', 'id']).inTable('jobs').onDelete('CASCADE');
      t.foreign(['organization_id', column]).references(['organization_id', 'id']).inTable(target).onDelete('CASCADE');
      t.index(['organization_id', column]);
    });
  }

  await knex.schema.createTable('phases', (t) => {
    tenantTable(t, knex, { softDelete: true });
    // NULL: a global phase.
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'CASCADE' });
    t.text('code').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('default_gl_code');
    orderIndexes(t, ['code', 'created_at', 'description', 'updated_at']);
  });
  // Unique per organization and scope (global, or one job) among live phases.
  await knex.raw('CREATE UNIQUE INDEX phases_scope_code_unique ON phases (organization_id, job_id, code) NULLS NOT DISTINCT WHERE deleted_at IS NULL');

  await knex.schema.createTable('cost_categories', (t) => {
    tenantTable(t, knex, { softDelete: true });
    // Both NULL: global; job only: job-level; phase (and its job): phase-level.
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'CASCADE' });
    tenantRef(t, 'phase_id', 'phases', { onDelete: 'CASCADE' });
    t.text('code').notNullable();
    t.text('description').notNullable().defaultTo('');
    orderIndexes(t, ['code', 'created_at', 'description', 'updated_at']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX cost_categories_scope_code_unique ON cost_categories (organization_id, job_id, phase_id, code) NULLS NOT DISTINCT WHERE deleted_at IS NULL',
  );

  await knex.schema.createTable('tags', (t) => {
    tenantTable(t, knex);
    t.text('title').notNullable();
    t.text('type').notNullable().defaultTo('ORDER');
    t.text('color');
    t.check(`type IN ('ORDER','INVENTORY_ITEM','REQUISITION','TOOL')`);
    t.check(`color IS NULL OR color IN (${TAG_COLORS})`);
    t.unique(['organization_id', 'title']);
    orderIndexes(t, ['created_at', 'color', 'updated_at', 'type']);
  });

  // Mail the service sends (registration e-mails), delivered by src/mail when SMTP_URL is set.
  await knex.schema.createTable('outbox_emails', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('organization_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.text('kind').notNullable();
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now());
    t.specificType('sent_at', 'timestamptz(3)');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.index(['sent_at', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'outbox_emails',
    'tags',
    'cost_categories',
    'phases',
    'job_users',
    'job_locations',
    'job_groups',
    'jobs',
    'vendors',
    'vendor_types',
    'locations',
    'groups',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
