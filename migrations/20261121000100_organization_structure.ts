import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

const LOCATION_TYPES = `'Billing','Branch','Jobsite','Office','Other','Warehouse','Will_Call'`;
const TAG_COLORS = `'#ff85c0','#ff7875','#ff9c6e','#ffc069','#ffd666','#d3f261','#95de64','#5cdbd3','#69b1ff','#85a5ff','#b37feb','#f0f0f0'`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('groups', (t) => {
    t.comment('Groups of jobs (API resource Group); soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    t.text('code').comment('API field `code`: optional code, unique among the live groups of the organization; NULL when none.');
    t.text('name').notNullable().comment('API field `name`: name of the group.');
    tenantRef(t, 'created_by_id', 'users', {
      onDelete: 'SET NULL',
      comment: 'API field `createdById`: the user who created the group; NULL when unknown or that user was deleted.',
    });
    orderIndexes(t, ['code', 'created_at', 'name', 'updated_at']);
  });
  await knex.raw('CREATE UNIQUE INDEX groups_org_code_unique ON groups (organization_id, code) WHERE deleted_at IS NULL AND code IS NOT NULL');

  await knex.schema.createTable('locations', (t) => {
    t.comment('Locations (API resource Location): job sites, offices, warehouses and other delivery places; soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    t.text('name').notNullable().comment('API field `name`: name of the location.');
    t.text('address_line1').comment('API field `addressLine1`: first address line; NULL when unknown.');
    t.text('address_line2').comment('API field `addressLine2`: second address line; NULL when none.');
    t.text('city').comment('API field `city`: city; NULL when unknown.');
    t.text('state').comment('API field `state`: state or province; NULL when unknown.');
    t.text('zipcode').comment('API field `zipcode`: postal code; NULL when unknown.');
    t.text('directions').comment('API field `directions`: directions for drivers; NULL when none.');
    t.text('phone').comment('API field `phone`: phone number at the location; NULL when none.');
    t.text('type').notNullable().comment('API field `type`: Billing, Branch, Jobsite, Office, Other, Warehouse or Will_Call (vendor pick-up counter).');
    tenantRef(t, 'default_tax_code_id', 'tax_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `defaultTaxCodeId`: tax code applied when the location is the delivery location of an order; NULL when none.',
    });
    t.double('latitude').comment('API field `latitude`: latitude in degrees; NULL when unknown.');
    t.double('longitude').comment('API field `longitude`: longitude in degrees; NULL when unknown.');
    // Who may see the location. ROLE (role-based) is configured only in the application.
    t.text('visibility')
      .notNullable()
      .defaultTo('ALL')
      .comment(
        'API field `visibility`: who sees the location when choosing a delivery location, ALL users or chosen roles (ROLE, set only in the application).',
      );
    // LocationIntegrationDataInput: opaque data of the integrating system.
    t.jsonb('integration_data').comment('Write-only API field `integrationData`: opaque data of the integrating system, stored as given; NULL when none.');
    t.check(`type IN (${LOCATION_TYPES})`);
    orderIndexes(t, ['created_at', 'name', 'updated_at', 'city', 'state', 'zipcode', 'type']);
  });

  await knex.schema.createTable('vendor_types', (t) => {
    t.comment('Kinds of vendor (API object VendorType, the `type` of a vendor), created on first use of a name.');
    tenantTable(t, knex);
    t.text('name').notNullable().comment('API field `name` of a vendor `type`: the name of the kind, unique in the organization.');
    t.unique(['organization_id', 'name']);
  });

  await knex.schema.createTable('vendors', (t) => {
    t.comment('Vendors (suppliers) orders are sent to (API resource Vendor); soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    t.text('code').notNullable().comment('API field `code`: code, unique among the live vendors of the organization.');
    t.text('name').notNullable().comment('API field `name`: name of the vendor.');
    tenantRef(t, 'location_id', 'locations', {
      onDelete: 'SET NULL',
      comment: 'The location returned as API field `location` (the vendor address); NULL when none.',
    });
    tenantRef(t, 'vendor_type_id', 'vendor_types', { onDelete: 'SET NULL', comment: 'The kind returned as API field `type`; NULL when the vendor has none.' });
    // The seller organization this vendor record stands for (seller lookup of orders); crosses
    // tenants on purpose, so it references organizations directly.
    t.uuid('seller_organization_id')
      .references('id')
      .inTable('organizations')
      .onDelete('SET NULL')
      .comment('The seller organization this vendor stands for, which may then look up the orders sent to it (admin CLI vendor link); NULL: not linked.');
    orderIndexes(t, ['code', 'created_at', 'name', 'updated_at']);
    t.index(['seller_organization_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX vendors_org_code_unique ON vendors (organization_id, code) WHERE deleted_at IS NULL');

  await knex.schema.createTable('jobs', (t) => {
    t.comment('Jobs: projects, work orders or service jobs that material is bought for (API resource Job).');
    tenantTable(t, knex);
    t.text('code').notNullable().comment('API field `code`: code, unique in the organization.');
    t.text('name').notNullable().comment('API field `name`: name of the job.');
    tenantRef(t, 'default_location_id', 'locations', {
      onDelete: 'SET NULL',
      comment: 'API field `defaultLocationId`: default delivery location of the job orders, always one of its attached locations; NULL when none.',
    });
    tenantRef(t, 'default_tax_code_id', 'tax_codes', {
      onDelete: 'SET NULL',
      comment: 'API field `defaultTaxCodeId`: default tax code of the job orders; NULL when none.',
    });
    t.specificType('start_date', 'timestamptz(3)').comment('API field `startDate`: when the job started; NULL when unknown.');
    t.text('state').notNullable().defaultTo('OPEN').comment('API field `state`: OPEN (active) or CLOSED (closed or cancelled).');
    // The number the job's next purchase order gets (see src/resources/jobs/po-counter.ts).
    t.integer('next_po_counter')
      .notNullable()
      .defaultTo(1)
      .comment('API field `nextPurchaseOrderCounter`: the number the next purchase order of the job gets (numbers its live orders carry are skipped).');
    t.check(`state IN ('OPEN','CLOSED')`);
    t.unique(['organization_id', 'code']);
    orderIndexes(t, ['created_at', 'name', 'start_date', 'updated_at', 'state']);
  });

  for (const [table, column, target, what] of [
    ['job_groups', 'group_id', 'groups', 'Groups a job belongs to (API field `groups` of a job).'],
    [
      'job_locations',
      'location_id',
      'locations',
      'Locations attached to a job (POST /jobs/{idOrCode}/locations); the earliest attached replaces a detached default.',
    ],
    ['job_users', 'user_id', 'users', 'Users assigned to a job (GET/POST /jobs/{idOrCode}/users).'],
  ] as const) {
    await knex.schema.createTable(table, (t) => {
      t.comment(what);
      t.uuid('organization_id')
        .notNullable()
        .references('id')
        .inTable('organizations')
        .onDelete('CASCADE')
        .comment('The organization (tenant) the link belongs to; every query is scoped by it.');
      t.uuid('job_id').notNullable().comment('The job (jobs.id in the same organization).');
      t.uuid(column).notNullable().comment(`The linked ${target} row (${target}.id in the same organization).`);
      t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the link was made.');
      t.primary(['organization_id', 'job_id', column]);
      t.foreign(['organization_id', 'job_id']).references(['organization_id', 'id']).inTable('jobs').onDelete('CASCADE');
      t.foreign(['organization_id', column]).references(['organization_id', 'id']).inTable(target).onDelete('CASCADE');
      t.index(['organization_id', column]);
    });
  }

  await knex.schema.createTable('phases', (t) => {
    t.comment('Phases of the flat work-breakdown structure (API resource Phase), global or of one job; soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    // NULL: a global phase.
    tenantRef(t, 'job_id', 'jobs', { onDelete: 'CASCADE', comment: 'API field `jobId`: the job the phase belongs to; NULL for a global phase.' });
    t.text('code').notNullable().comment('API field `code`: human-readable code, unique among the live phases of its scope (global, or one job).');
    t.text('description').notNullable().defaultTo('').comment('API field `description`: description (empty when none).');
    t.text('default_gl_code').comment('API field `defaultGLCode`: default GL code of the phase, as text; NULL when none.');
    orderIndexes(t, ['code', 'created_at', 'description', 'updated_at']);
  });
  // Unique per organization and scope (global, or one job) among live phases.
  await knex.raw('CREATE UNIQUE INDEX phases_scope_code_unique ON phases (organization_id, job_id, code) NULLS NOT DISTINCT WHERE deleted_at IS NULL');

  await knex.schema.createTable('cost_categories', (t) => {
    t.comment('Cost categories (API resource CostCategory): global, of a job, or of a phase of a job; soft-deleted.');
    tenantTable(t, knex, { softDelete: true });
    // Both NULL: global; job only: job-level; phase (and its job): phase-level.
    tenantRef(t, 'job_id', 'jobs', {
      onDelete: 'CASCADE',
      comment: 'API field `jobId`: the job of a job- or phase-level category; NULL for a global category.',
    });
    tenantRef(t, 'phase_id', 'phases', {
      onDelete: 'CASCADE',
      comment: 'API field `phaseId`: the phase of a phase-level category; NULL for global and job-level categories.',
    });
    t.text('code').notNullable().comment('API field `code`: human-readable code, unique among the live categories of its scope.');
    t.text('description').notNullable().defaultTo('').comment('API field `description`: description (empty when none).');
    orderIndexes(t, ['code', 'created_at', 'description', 'updated_at']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX cost_categories_scope_code_unique ON cost_categories (organization_id, job_id, phase_id, code) NULLS NOT DISTINCT WHERE deleted_at IS NULL',
  );

  await knex.schema.createTable('tags', (t) => {
    t.comment('Tags (API resource Tag) that label orders, inventory items, requisitions or tools.');
    tenantTable(t, knex);
    t.text('title').notNullable().comment('API field `title`: name of the tag, unique in the organization (case-sensitive).');
    t.text('type').notNullable().defaultTo('ORDER').comment('API field `type`: what the tag is used on, ORDER, INVENTORY_ITEM, REQUISITION or TOOL.');
    t.text('color').comment('API field `color`: one of twelve hex colors including the # (e.g. #ff85c0); NULL when the tag has no color.');
    t.check(`type IN ('ORDER','INVENTORY_ITEM','REQUISITION','TOOL')`);
    t.check(`color IS NULL OR color IN (${TAG_COLORS})`);
    t.unique(['organization_id', 'title']);
    orderIndexes(t, ['created_at', 'color', 'updated_at', 'type']);
  });

  // Mail the service sends (registration e-mails), delivered by src/mail when SMTP_URL is set.
  await knex.schema.createTable('outbox_emails', (t) => {
    t.comment('Outbox of e-mails the service sends (registration mail), written with the change that causes them and sent by src/mail.');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Unique ID of the e-mail (never shown).');
    t.uuid('organization_id')
      .notNullable()
      .references('id')
      .inTable('organizations')
      .onDelete('CASCADE')
      .comment('The organization whose change caused the e-mail.');
    t.text('to_address').notNullable().comment('Recipient as an address header value, e.g. `Name <name@example.com>`.');
    t.text('subject').notNullable().comment('Subject line.');
    t.text('body').notNullable().comment('Plain-text body.');
    t.text('kind').notNullable().comment('What the e-mail is; today only registration (welcome mail of a user created through the API).');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the e-mail was queued; sending goes oldest first.');
    t.specificType('sent_at', 'timestamptz(3)').comment('When the SMTP server accepted the e-mail; NULL while it is not sent.');
    t.integer('attempts').notNullable().defaultTo(0).comment('Delivery attempts made so far (sending gives up after 10).');
    t.text('last_error').comment('Error of the last failed attempt; NULL when none failed or the last one succeeded.');
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
