import type { Knex } from 'knex';

const ADD_JOB = `PERFORM graphile_worker.add_job('webhook_deliver', json_build_object('endpointId', endpoint_id),
                                      run_at => run_at, job_key => 'webhook:' || endpoint_id, job_key_mode => mode);`;

/** webhook_wake (see 20261124040000_webhooks.ts) with `call` as the statement that adds the job. */
const wakeFunction = (call: string) => `
  CREATE OR REPLACE FUNCTION webhook_wake(endpoint_id uuid, run_at timestamptz, mode text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF to_regnamespace('graphile_worker') IS NULL THEN
      RETURN;
    END IF;
    ${call}
  END $$`;

/**
 * The doorbell never fails the write that rings it. While graphile-worker installs or upgrades
 * its schema (a worker starting for the first time on this database, or a new graphile-worker
 * version) a write can meet a half-migrated schema; the job is then skipped (the failed call is
 * rolled back to its own savepoint) and the worker's sweep delivers the entries from
 * delivered_position within a minute. Delivery never depended on the job, only its latency does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    wakeFunction(`BEGIN
      ${ADD_JOB}
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'webhook_wake: no job for endpoint % (%); the sweep will deliver', endpoint_id, SQLERRM;
    END;`),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(wakeFunction(ADD_JOB));
}
