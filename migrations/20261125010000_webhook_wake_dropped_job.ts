import type { Knex } from 'knex';

/**
 * webhook_wake (20261124040000_webhooks.ts, made best-effort by 20261124040100) rings again when
 * graphile-worker's add_job silently drops the doorbell (graphile/worker#580, open against 0.17.3).
 *
 * add_job first takes the key off a job that a worker is running, then upserts the job under that
 * key `ON CONFLICT (key) DO UPDATE ... WHERE locked_at IS NULL`. When a worker takes the queued job
 * between those two steps (or while the upsert waits for that job's row), the upsert's condition is
 * false on the row it finally sees: no job is added or updated and add_job returns an empty row.
 * The job already running may have read the feed before the ringing transaction committed, so the
 * new entries waited for the minute's sweep (this stalled the two-worker delivery test in CI). Ringing
 * again finds that job taken, moves the key to a new job and adds it, as add_job intends.
 */
const wakeFunction = (body: string) => `
  CREATE OR REPLACE FUNCTION webhook_wake(endpoint_id uuid, run_at timestamptz, mode text) RETURNS void LANGUAGE plpgsql AS $$
  ${body}
  $$`;

const RINGS_UNTIL_ADDED = `
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
                                       run_at => run_at, job_key => 'webhook:' || endpoint_id, job_key_mode => mode) AS j;
        EXIT WHEN job_id IS NOT NULL;
      END LOOP;
      IF job_id IS NULL THEN
        RAISE WARNING 'webhook_wake: no job for endpoint % (added under contention five times); the sweep will deliver', endpoint_id;
      END IF;
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'webhook_wake: no job for endpoint % (%); the sweep will deliver', endpoint_id, SQLERRM;
    END;
  END`;

const BEST_EFFORT = `
  BEGIN
    IF to_regnamespace('graphile_worker') IS NULL THEN
      RETURN;
    END IF;
    BEGIN
      PERFORM graphile_worker.add_job('webhook_deliver', json_build_object('endpointId', endpoint_id),
                                      run_at => run_at, job_key => 'webhook:' || endpoint_id, job_key_mode => mode);
    EXCEPTION WHEN OTHERS THEN
      RAISE WARNING 'webhook_wake: no job for endpoint % (%); the sweep will deliver', endpoint_id, SQLERRM;
    END;
  END`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(wakeFunction(RINGS_UNTIL_ADDED));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(wakeFunction(BEST_EFFORT));
}
