import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { changedReference } from '../../db/refs';
import { ResourceDef, allJson, existsById, listJson, oneByIdJson, scoped, whereId } from '../../db/resource';
import { rowOf, updateRow } from '../../db/resource-writes';
import { invalidField, notFound } from '../../errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { taxCodes } from '../tax-codes/queries';
import { detachEverywhere } from './attachments';

type Location = Schema<'Location'>;

const JOB_REFS = `(SELECT coalesce(json_agg(json_build_object('id', lj.id, 'code', lj.code, 'name', lj.name) ORDER BY lj.code), '[]'::json)
  FROM jobs lj WHERE lj.organization_id = l.organization_id AND (lj.default_location_id = l.id OR EXISTS (
    SELECT 1 FROM job_locations ljl WHERE ljl.organization_id = l.organization_id AND ljl.job_id = lj.id AND ljl.location_id = l.id)))`;
const VENDOR_REFS = `(SELECT coalesce(json_agg(json_build_object('id', lv.id, 'code', lv.code, 'name', lv.name) ORDER BY lv.code), '[]'::json)
  FROM vendors lv WHERE lv.organization_id = l.organization_id AND lv.location_id = l.id AND lv.deleted_at IS NULL)`;

export const locations: ResourceDef = {
  table: 'locations',
  alias: 'l',
  softDelete: true,
  columns: {
    id: idCol('l.id'),
    name: col('l.name'),
    addressLine1: col('l.address_line1'),
    addressLine2: col('l.address_line2'),
    city: col('l.city'),
    state: col('l.state'),
    zipcode: col('l.zipcode'),
    directions: col('l.directions'),
    phone: col('l.phone'),
    type: col('l.type'),
    defaultTaxCodeId: idCol('l.default_tax_code_id'),
    latitude: col('l.latitude'),
    longitude: col('l.longitude'),
    visibility: col('l.visibility'),
    jobs: expr(JOB_REFS),
    vendors: expr(VENDOR_REFS),
    createdAt: tsCol('l.created_at'),
    updatedAt: tsCol('l.updated_at'),
  },
  writable: [
    'name',
    'type',
    'addressLine1',
    'addressLine2',
    'city',
    'state',
    'zipcode',
    'directions',
    'phone',
    'defaultTaxCodeId',
    'latitude',
    'longitude',
    'visibility',
  ],
};

const deletedLocations: ResourceDef = { ...locations, columns: { ...locations.columns, deletedAt: tsCol('l.deleted_at') } };

/** A LocationSummary object built from a row aliased `lo`. */
export const LOCATION_SUMMARY_JSON = `json_build_object('id', lo.id, 'name', lo.name, 'addressLine1', lo.address_line1, 'addressLine2', lo.address_line2,
  'city', lo.city, 'state', lo.state, 'zipcode', lo.zipcode, 'directions', lo.directions, 'phone', lo.phone, 'type', lo.type,
  'defaultTaxCodeId', lo.default_tax_code_id, 'latitude', lo.latitude, 'longitude', lo.longitude,
  'createdAt', api_ts(lo.created_at), 'updatedAt', api_ts(lo.updated_at))`;

export type LocationInput = Partial<Schema<'LocationCreate'>> & { integrationData?: Record<string, unknown> | null };

/**
 * A location's row. integrationData (from a job's inline default location) is written but never
 * returned, so it has no column in the map: it is added here, as JSON text.
 */
const locationRow = (c: LocationInput) => ({
  ...rowOf(locations, c),
  integration_data: c.integrationData === undefined ? undefined : c.integrationData === null ? null : JSON.stringify(c.integrationData),
});

export const WAREHOUSE_TYPE_MESSAGE = 'the type of a Warehouse location cannot be changed';

/** What a location update checks against: the stored type and tax code. */
export interface CurrentLocation {
  type: string;
  default_tax_code_id: string | null;
}

/**
 * The rules every location write checks; `field` prefixes the names in errors (`body` or
 * `body.defaultLocation`); `current` is the location an update changes.
 */
export async function checkLocationInput(db: Queryable, orgId: string, input: LocationInput, field: string, current?: CurrentLocation): Promise<void> {
  if (input.visibility === 'ROLE') {
    throw invalidField(`${field}.visibility`, 'roleVisibility', 'ROLE is not accepted: role-based visibility is configured only in the application');
  }
  if (current?.type === 'Warehouse' && input.type !== undefined && input.type !== 'Warehouse') {
    throw invalidField(`${field}.type`, 'warehouseType', `${WAREHOUSE_TYPE_MESSAGE} (it is ${current.type}; ${input.type} was given)`);
  }
  if (changedReference(input.defaultTaxCodeId, current?.default_tax_code_id) && !(await existsById(db, taxCodes, orgId, input.defaultTaxCodeId))) {
    throw notFound(`${field}.defaultTaxCodeId: no tax code ${input.defaultTaxCodeId} exists in your organization.`);
  }
}

export const listLocations = (db: Queryable, orgId: string, params: ListParams, restrict?: (q: Knex.QueryBuilder) => void) => {
  const q = scoped(db, locations, orgId);
  restrict?.(q);
  return listJson<Location>(db, locations, q, params);
};

/** Live locations by id, in the order given (one statement). */
export function locationsInOrder(db: Queryable, orgId: string, ids: string[]): Promise<Json<Location[]>> {
  const q = scoped(db, locations, orgId).joinRaw('JOIN unnest(?::uuid[]) WITH ORDINALITY AS wanted(id, position) ON wanted.id = l.id', [ids]);
  return allJson<Location>(db, locations, q, 'wanted.position');
}

/** The location's type, or undefined when it is not a live location of the organization. */
export async function locationType(db: Queryable, orgId: string, id: string): Promise<string | undefined> {
  return (await currentLocation(db, orgId, id))?.type;
}

/** The live location's type and tax code (what an update is checked against), or undefined. */
export async function currentLocation(db: Queryable, orgId: string, id: string): Promise<CurrentLocation | undefined> {
  return whereId(scoped(db, locations, orgId), locations, id).first('l.type', 'l.default_tax_code_id');
}

/** Inserts a checked location; returns its ID. */
export async function insertLocation(db: Queryable, orgId: string, input: LocationInput): Promise<string> {
  const id = randomUUID();
  await db('locations').insert({ ...locationRow(input), id, organization_id: orgId });
  return id;
}

export const updateLocationRow = (db: Queryable, orgId: string, id: string, changes: LocationInput): Promise<boolean> =>
  updateRow(db, locations, orgId, id, locationRow(changes));

export async function createLocation(db: Queryable, orgId: string, input: Schema<'LocationCreate'>): Promise<Json<Location>> {
  await checkLocationInput(db, orgId, input, 'body');
  const id = await insertLocation(db, orgId, input);
  return (await oneByIdJson<Location>(db, locations, orgId, id))!;
}

export async function updateLocation(db: Queryable, orgId: string, id: string, changes: Schema<'LocationUpdate'>): Promise<Json<Location> | undefined> {
  const current = await currentLocation(db, orgId, id);
  if (!current) return undefined;
  await checkLocationInput(db, orgId, changes, 'body', current);
  await updateLocationRow(db, orgId, id, changes);
  return oneByIdJson<Location>(db, locations, orgId, id);
}

/** Soft-deletes; the answer shows the jobs and vendors the location had, then it leaves them. */
export async function deleteLocation(db: Knex, orgId: string, id: string): Promise<Json<Schema<'LocationDeleted'>> | undefined> {
  return db.transaction(async (tx) => {
    const updated = await whereId(scoped(tx, locations, orgId), locations, id).update({ deleted_at: tx.fn.now(), updated_at: tx.fn.now() });
    if (!updated) return undefined;
    const body = await oneByIdJson<Schema<'LocationDeleted'>>(tx, deletedLocations, orgId, id, { includeDeleted: true });
    await detachEverywhere(tx, orgId, id);
    return body;
  });
}
