import type { Knex } from 'knex';

/**
 * Webhooks: subscriptions to the change feed, their delivery progress and the attempt log.
 *
 * What must be delivered is the feed itself: an endpoint has to receive every matching
 * `change_feed` entry after its `delivered_position`, in position order. The trigger below only
 * rings a doorbell: in the writing transaction it adds a graphile-worker job (keyed by endpoint) so
 * a worker wakes up at once. If a doorbell is lost (no worker schema yet, a crashed worker holding
 * the job), the periodic sweep (src/webhooks/worker.ts) rings it again from `delivered_position`,
 * so durability never depends on the job rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.comment('Webhook endpoints (API resource WebhookEndpoint): subscriptions to the change feed and their delivery progress.');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Unique ID.');
    t.uuid('organization_id')
      .notNullable()
      .references('id')
      .inTable('organizations')
      .onDelete('CASCADE')
      .comment("Owner; the endpoint receives this organization's changes only.");
    t.text('url').notNullable().comment('Target URL (https, or http for WEBHOOK_ALLOWED_HOSTS).');
    t.text('description').notNullable().defaultTo('').comment('Free text for the integrator.');
    t.specificType('types', 'text[]').comment('Feed event types delivered; NULL: every type.');
    t.boolean('enabled').notNullable().defaultTo(true).comment('Deliveries are made only while true.');
    t.text('secret').notNullable().comment('Current signing secret (whsec_...); needed in clear to compute HMACs.');
    t.text('previous_secret').comment('Secret before the last rotation, still signing until previous_secret_expires_at.');
    t.specificType('previous_secret_expires_at', 'timestamptz(3)').comment('End of the rotation overlap.');
    t.uuid('created_by').comment('User who created the endpoint: the recipient of its failure notification.');
    t.bigInteger('delivered_position').notNullable().defaultTo(0).comment('Feed position up to which entries were delivered (or finally refused).');
    t.integer('generation').notNullable().defaultTo(0).comment('Bumped by every configuration change or replay; a worker whose view is older stops.');
    t.integer('head_attempts').notNullable().defaultTo(0).comment('Attempts made so far for the entry after delivered_position.');
    t.specificType('failing_since', 'timestamptz(3)').comment('First failed attempt of the entry now retried; NULL when not failing.');
    t.specificType('next_attempt_at', 'timestamptz(3)').comment('Earliest time of the next retry (backoff); NULL: no retry pending.');
    t.text('last_error').comment('Error of the last failed attempt.');
    t.specificType('last_success_at', 'timestamptz(3)').comment('Time of the last successful delivery.');
    t.specificType('disabled_at', 'timestamptz(3)').comment('When deliveries were stopped after retrying for the whole retry period.');
    t.text('disabled_reason').comment('Why the service disabled the endpoint (NULL when disabled by a user or enabled).');
    t.text('lease_owner').comment('Worker now delivering to the endpoint: one at a time, across instances.');
    t.specificType('lease_expires_at', 'timestamptz(3)').comment('The lease lapses then, so a crashed worker is replaced.');
    t.specificType('created_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('Creation time.');
    t.specificType('updated_at', 'timestamptz(3)').notNullable().defaultTo(knex.fn.now()).comment('Last change by the API or by the service (disabling).');
    t.unique(['organization_id', 'id']);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.comment('Log of webhook delivery attempts (API resource WebhookDelivery), kept WEBHOOK_DELIVERY_RETENTION_DAYS (30 by default).');
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()')).comment('Unique ID of the attempt.');
    t.uuid('organization_id').notNullable().comment("Owner (the endpoint's organization).");
    t.uuid('endpoint_id').notNullable().comment('The endpoint the attempt was made to.');
    t.bigInteger('position').notNullable().comment('Feed position of the entry delivered.');
    t.text('type').notNullable().comment('Event type of the entry.');
    t.text('message_id').notNullable().comment('webhook-id header: the same for every attempt of one entry to one endpoint.');
    t.integer('attempt').notNullable().comment('1 for the first attempt of this entry, then 2, 3...');
    t.text('status').notNullable().comment('succeeded, retrying (another attempt is scheduled) or failed (final).');
    t.integer('response_status').comment('HTTP status answered; NULL when no answer (timeout, network error, refused address).');
    t.integer('duration_ms').notNullable().comment('Time from sending to the answer or the error.');
    t.text('error').comment('What went wrong; NULL on success.');
    t.specificType('next_attempt_at', 'timestamptz(3)').comment('When the retry is due (status retrying).');
    t.specificType('attempted_at', 'timestamptz(3)').notNullable().defaultTo(knex.raw('clock_timestamp()')).comment('When the attempt was made.');
    // One endpoint's attempts are made one at a time (the lease), so this numbers them in order
    // even when two fall in the same millisecond.
    t.specificType('seq', 'bigint GENERATED ALWAYS AS IDENTITY').comment('Order of the attempts (the list is newest first by it).');
    t.foreign(['organization_id', 'endpoint_id']).references(['organization_id', 'id']).inTable('webhook_endpoints').onDelete('CASCADE');
    t.check(`status IN ('succeeded','retrying','failed')`);
  });
  // The deliveries list: one endpoint's attempts, newest first.
  await knex.raw('CREATE INDEX webhook_deliveries_endpoint_seq ON webhook_deliveries (endpoint_id, seq DESC)');
  // Retention sweep by age.
  await knex.raw('CREATE INDEX webhook_deliveries_attempted_at ON webhook_deliveries (attempted_at)');

  // Rings an endpoint's doorbell: a graphile-worker job keyed by endpoint, due at run_at (NULL:
  // now). 'preserve_run_at' keeps a retry already scheduled for later; 'replace' moves it. Until
  // the graphile_worker schema exists (no worker ever started on this database) it does nothing:
  // the first worker's sweep finds the pending entries from delivered_position.
  await knex.raw(`
    CREATE FUNCTION webhook_wake(endpoint_id uuid, run_at timestamptz, mode text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF to_regnamespace('graphile_worker') IS NULL THEN
        RETURN;
      END IF;
      PERFORM graphile_worker.add_job('webhook_deliver', json_build_object('endpointId', endpoint_id),
                                      run_at => run_at, job_key => 'webhook:' || endpoint_id, job_key_mode => mode);
    END $$`);
  // Statement-level with a transition table: a 1000-entry batch fires it once. It runs inside the
  // writing transaction, so the job exists exactly when the entries do.
  await knex.raw(`
    CREATE FUNCTION webhook_doorbell() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM webhook_wake(w.id, NULL, 'preserve_run_at')
         FROM webhook_endpoints w
        WHERE w.organization_id IN (SELECT DISTINCT n.organization_id FROM new_entries n)
          AND w.enabled
          AND (w.types IS NULL OR w.types && ARRAY(SELECT DISTINCT n.type FROM new_entries n));
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER change_feed_webhook_doorbell AFTER INSERT ON change_feed
    REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION webhook_doorbell()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS change_feed_webhook_doorbell ON change_feed');
  await knex.raw('DROP FUNCTION IF EXISTS webhook_doorbell()');
  await knex.raw('DROP FUNCTION IF EXISTS webhook_wake(uuid, timestamptz, text)');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
