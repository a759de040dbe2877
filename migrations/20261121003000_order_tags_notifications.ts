import type { Knex } from 'knex';
import { orderIndexes, tenantRef, tenantTable } from '../src/db/schema-helpers';

/**
 * Orders' read side: order tags, notifications, the organization's header custom field (an order's
 * headerCustomFieldValue is null while it is not configured), and the indexes the order and item
 * lists and the seller lookup need.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    // The label of the org-configured custom header field on orders; NULL: not configured.
    t.text('header_custom_field_name').comment("The label of the organization's custom header field on orders; NULL: not configured.");
  });

  await knex.schema.createTable('order_tags', (t) => {
    t.comment('Tags put on orders (GET/POST /order/{orderId}/tags).');
    t.uuid('organization_id')
      .notNullable()
      .references('id')
      .inTable('organizations')
      .onDelete('CASCADE')
      .comment('The organization (tenant) the link belongs to; every query is scoped by it.');
    t.uuid('order_id').notNullable().comment('The tagged order (orders.id in the same organization).');
    t.uuid('tag_id').notNullable().comment('The tag (tags.id in the same organization).');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('When the tag was put on the order.');
    t.primary(['organization_id', 'order_id', 'tag_id']);
    t.foreign(['organization_id', 'order_id']).references(['organization_id', 'id']).inTable('orders').onDelete('CASCADE');
    t.foreign(['organization_id', 'tag_id']).references(['organization_id', 'id']).inTable('tags').onDelete('CASCADE');
    t.index(['organization_id', 'tag_id']);
  });

  await knex.schema.createTable('notifications', (t) => {
    t.comment('Notifications about the integration addressed to users (API resource Notification).');
    tenantTable(t, knex);
    tenantRef(t, 'recipient_id', 'users', {
      notNullable: true,
      onDelete: 'CASCADE',
      comment: 'API field `recipientId`: the user the notification is addressed to.',
    });
    t.text('type').notNullable().comment('API field `type`: integration_issue (a sync problem with the integrated system) or integration_issue_resolved.');
    t.jsonb('payload')
      .notNullable()
      .comment('API field `payload`: the data of the notification as given (lastSyncTime and order, or resolvedAt, depending on the type).');
    t.boolean('is_read').notNullable().defaultTo(false).comment('API field `isRead`: whether the recipient has read it; always equal to read_at IS NOT NULL.');
    t.specificType('read_at', 'timestamptz(3)').comment('API field `readAt`: when the recipient read it; NULL while unread.');
    t.check(`type IN ('integration_issue','integration_issue_resolved')`);
    // isRead and readAt always agree.
    t.check('is_read = (read_at IS NOT NULL)');
    orderIndexes(t, ['created_at', 'updated_at', 'read_at', 'type', 'is_read']);
  });

  await knex.schema.alterTable('orders', (t) => {
    orderIndexes(t, ['state', 'type', 'mode']);
    // Seller lookup: a vendor's orders, recent first.
    t.index(['vendor_id', 'updated_at']);
  });
  // Seller lookup's fuzzy match compares PO numbers without punctuation, whitespace or case.
  await knex.raw(
    `CREATE INDEX orders_po_number_normalized ON orders (organization_id, (regexp_replace(lower(purchase_order_number), '[[:space:]/#._-]', '', 'g')))`,
  );

  await knex.schema.alterTable('items', (t) => {
    orderIndexes(t, ['line_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS orders_po_number_normalized');
  await knex.schema.alterTable('items', (t) => {
    t.dropIndex(['organization_id', 'line_number', 'id']);
  });
  await knex.schema.alterTable('orders', (t) => {
    for (const c of ['state', 'type', 'mode']) t.dropIndex(['organization_id', c, 'id']);
    t.dropIndex(['vendor_id', 'updated_at']);
  });
  await knex.schema.dropTableIfExists('notifications');
  await knex.schema.dropTableIfExists('order_tags');
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('header_custom_field_name');
  });
}
