import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import {
  BatchOutcome,
  NONE_REJECTED,
  RejectedElements,
  UNRECORDED,
  checkBatchSize,
  checkElements,
  insertedIds,
  renamedIds,
  upsertRecordset,
  upsertRecordsetReplying,
} from '../../db/batch';
import { changedReference, existingIds, isReference, missingOf } from '../../db/refs';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { attachToJob } from '../locations/attachments';
import { WAREHOUSE_TYPE_MESSAGE } from '../locations/queries';
import { jobs, jobsInOrder, replaceJobGroups } from './queries';

type JobUpsert = Schema<'JobUpsert'>;

interface ExistingJob {
  id: string;
  code: string;
  name: string;
  default_location_id: string | null;
  default_tax_code_id: string | null;
  state: string;
  /** ISO 8601 text as PostgreSQL writes it (whatever DateStyle): it only goes back into the upsert. */
  start_date: string | null;
  /** Type of the job's live default location (null when it has none). */
  location_type: string | null;
  /** That location's tax code. */
  location_tax_code_id: string | null;
}

const LOCATION_FIELDS = ['address_line1', 'address_line2', 'city', 'state', 'zipcode', 'directions', 'phone', 'default_tax_code_id', 'integration_data'];

/** The value of an input key: given (even null) wins, otherwise the stored one, otherwise the default. */
const pick = <T>(input: object, key: string, given: T, stored: T | undefined, fallback: T): T =>
  key in input ? given : stored !== undefined ? stored : fallback;

/**
 * POST /jobs/batch: all elements are checked first (foreign IDs with one query per kind), then the
 * whole batch is written with a handful of set-based statements, in one transaction.
 */
export async function upsertJobs(
  db: Knex,
  orgId: string,
  inputs: JobUpsert[],
  outcome: BatchOutcome = UNRECORDED,
  rejected: RejectedElements = NONE_REJECTED,
): Promise<Json<Schema<'Job'>[]>> {
  checkBatchSize(inputs);
  return db.transaction(async (tx) => {
    const { errors, accepted } = checkElements(inputs, rejected);
    errors.addDuplicates(
      accepted.map(({ input, position }) => ({ position, key: input.code })),
      (code) => `code ${code}`,
    );
    const locations = await existingIds(
      tx,
      'locations',
      orgId,
      accepted.map(({ input }) => input.defaultLocationId),
      { softDelete: true },
    );
    const taxCodes = await existingIds(
      tx,
      'tax_codes',
      orgId,
      accepted.flatMap(({ input }) => [input.defaultTaxCodeId, input.defaultLocation?.defaultTaxCodeId]),
      { softDelete: true },
    );
    const groups = await existingIds(
      tx,
      'groups',
      orgId,
      accepted.flatMap(({ input }) => input.groupIds ?? []),
      { softDelete: true },
    );
    const existing: ExistingJob[] = await tx('jobs as j')
      .leftJoin('locations as l', (on) => on.on('l.organization_id', 'j.organization_id').andOn('l.id', 'j.default_location_id').andOnNull('l.deleted_at'))
      .where('j.organization_id', orgId)
      .whereRaw('j.code = ANY(?::text[])', [[...new Set(accepted.map(({ input }) => input.code))]])
      // Locks in code order, as every batch takes them (see inLockOrder in db/batch.ts).
      .orderBy('j.code')
      .forUpdate('j')
      .select(
        'j.id',
        'j.code',
        'j.name',
        'j.default_location_id',
        'j.default_tax_code_id',
        'j.state',
        tx.raw("to_json(j.start_date) #>> '{}' AS start_date"),
        'l.type as location_type',
        'l.default_tax_code_id as location_tax_code_id',
      );
    const byCode = new Map(existing.map((e) => [e.code, e]));

    accepted.forEach(({ input, position: n }) => {
      if (input.defaultLocationId !== undefined && input.defaultLocation !== undefined)
        errors.add(n, 'give either defaultLocationId or defaultLocation, not both');
      if (isReference(input.defaultLocationId) && !locations.has(input.defaultLocationId.toLowerCase()))
        errors.add(n, `defaultLocationId: no location ${input.defaultLocationId} exists in your organization`);
      // A tax code left as the job (or its default location) holds it is not looked up (changedReference).
      const job = byCode.get(input.code);
      if (changedReference(input.defaultTaxCodeId, job?.default_tax_code_id) && !taxCodes.has(input.defaultTaxCodeId.toLowerCase()))
        errors.add(n, `defaultTaxCodeId: no tax code ${input.defaultTaxCodeId} exists in your organization`);
      const inlineTax = input.defaultLocation?.defaultTaxCodeId;
      if (changedReference(inlineTax, job?.location_tax_code_id) && !taxCodes.has(inlineTax.toLowerCase()))
        errors.add(n, `defaultLocation.defaultTaxCodeId: no tax code ${inlineTax} exists in your organization`);
      const missingGroups = missingOf(input.groupIds ?? [], groups);
      if (missingGroups.length) errors.add(n, `groupIds: no group ${missingGroups.join(', ')} exists in your organization`);
      const current = byCode.get(input.code)?.location_type;
      const newType = input.defaultLocation?.type;
      if (current === 'Warehouse' && newType && newType !== 'Warehouse') errors.add(n, `defaultLocation.type: ${WAREHOUSE_TYPE_MESSAGE}`);
    });
    // Past this point every element was accepted (`accepted` is all of `inputs`).
    errors.throwIfAny();

    // Written in code order: every statement below then takes its row locks in the same order in
    // every batch (no deadlock between batches naming the same jobs in different orders).
    const ordered = [...inputs].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    // Inline default locations: the job's current default location is updated, otherwise a new one is created.
    const locationIdByCode = new Map<string, string>();
    const locationRows = ordered.flatMap((input) => {
      const d = input.defaultLocation;
      if (!d) return [];
      const job = byCode.get(input.code);
      const id = job?.location_type ? job.default_location_id! : randomUUID();
      locationIdByCode.set(input.code, id);
      return [
        {
          id,
          organization_id: orgId,
          name: d.name,
          type: d.type ?? job?.location_type ?? 'Jobsite',
          address_line1: d.addressLine1 ?? null,
          address_line2: d.addressLine2 ?? null,
          city: d.city ?? null,
          state: d.state ?? null,
          zipcode: d.zipcode ?? null,
          directions: d.directions ?? null,
          phone: d.phone ?? null,
          default_tax_code_id: d.defaultTaxCodeId ?? null,
          integration_data: d.integrationData ?? null,
        },
      ];
    });
    await upsertRecordset(tx, 'locations', locationRows, {
      conflict: '(id)',
      update: ['name', 'type', ...LOCATION_FIELDS],
      keepWhenNull: LOCATION_FIELDS,
      returning: ['id'],
    });

    const jobRows = ordered.map((input) => {
      const job = byCode.get(input.code);
      const defaultLocationId =
        locationIdByCode.get(input.code) ?? pick(input, 'defaultLocationId', input.defaultLocationId ?? null, job?.default_location_id, null);
      return {
        organization_id: orgId,
        code: input.code,
        name: input.name,
        default_location_id: defaultLocationId,
        default_tax_code_id: pick(input, 'defaultTaxCodeId', input.defaultTaxCodeId ?? null, job?.default_tax_code_id, null),
        state: input.state ?? job?.state ?? 'OPEN',
        start_date: pick(input, 'startDate', input.startDate ?? null, job?.start_date, null),
      };
    });
    type Written = { id: string; code: string; xmax: string };
    const upsert = {
      conflict: '(organization_id, code)',
      update: ['name', 'default_location_id', 'default_tax_code_id', 'state', 'start_date'],
      returning: ['id', 'code', 'xmax'],
    };
    // The reply shows each job's groups: when the batch replaces groups it is read back at the end;
    // otherwise nothing after the upsert changes it, and the upsert builds it.
    const { rows: written, reply } = inputs.some((i) => i.groupIds)
      ? { rows: await upsertRecordset<Written>(tx, 'jobs', jobRows, upsert), reply: undefined }
      : await upsertRecordsetReplying<Written, Schema<'Job'>>(tx, 'jobs', jobRows, {
          ...upsert,
          reply: { def: jobs, key: 'code', order: inputs.map((i) => i.code) },
        });
    outcome.markCreated(insertedIds(written));
    const idByCode = new Map(written.map((r) => [r.code, r.id]));
    // The code is the key and cannot change: a job is renamed when its name does.
    outcome.markRenamed(renamedIds(written, new Map(existing.map((e) => [e.code, e.name])), new Map(inputs.map((i) => [i.code, i.name]))));

    const attached = ordered.flatMap((input) => {
      const locationId = locationIdByCode.get(input.code) ?? input.defaultLocationId;
      return locationId ? [{ jobId: idByCode.get(input.code)!, locationId }] : [];
    });
    await attachToJob(tx, orgId, attached);
    await replaceJobGroups(tx, orgId, new Map(ordered.filter((i) => i.groupIds).map((i) => [idByCode.get(i.code)!, i.groupIds!])));
    return (
      reply ??
      jobsInOrder(
        tx,
        orgId,
        inputs.map((i) => idByCode.get(i.code)!),
      )
    );
  });
}
