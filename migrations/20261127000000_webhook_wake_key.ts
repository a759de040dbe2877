import type { Knex } from 'knex';

/**
 * webhook_wake takes the job key's prefix: `webhook:` (the doorbell, the default) or
 * `webhook-lapse:` (the look at an endpoint when a lease held by a run that died lapses,
 * src/background/deliver.ts). The lapse job is then added the one way every doorbell is, with the
 * rings again of 20261125010000 (graphile/worker#580), instead of by a call to add_job of its own.
 * A parameter with a default is a new signature: the three-argument function is replaced, not
 * overloaded (a three-argument call would otherwise be ambiguous).
 */
const ringsUntilAdded = (key: string) => `
  DECLARE
    job_id bigint;
  BEGIN
    IF to_regnamespace('graphile_worker') IS NULL THEN
      RETURN;
    END IF;
    BEGIN
      FOR ring IN 1..5 LOOP
        SELECT j.id INTO job_id
          FROM graphile_worker.add_job('webhook_deliver', json_build_object('endpointId', endpoint_id),
                                       run_at => run_at, job_key => ${key} || endpoint_id, job_key_mode => mode) AS j;
        EXIT WHEN job_id IS NOT NULL;
      END LOOP;
      IF job_id IS NULL THEN
        RAISE WARNING 'webhook_wake: no job for endpoint % (added under contention five times); the sweep will deliver', endpoint_id;
      END IF;
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'webhook_wake: no job for endpoint % (%); the sweep will deliver', endpoint_id, SQLERRM;
    END;
  END`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION webhook_wake(uuid, timestamptz, text)');
  await knex.raw(`
    CREATE FUNCTION webhook_wake(endpoint_id uuid, run_at timestamptz, mode text, key_prefix text DEFAULT 'webhook:') RETURNS void LANGUAGE plpgsql AS $$
    ${ringsUntilAdded('key_prefix')}
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION webhook_wake(uuid, timestamptz, text, text)');
  await knex.raw(`
    CREATE FUNCTION webhook_wake(endpoint_id uuid, run_at timestamptz, mode text) RETURNS void LANGUAGE plpgsql AS $$
    ${ringsUntilAdded("'webhook:'")}
    $$`);
}
