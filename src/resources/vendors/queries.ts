import type { Knex } from 'knex';
import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, allJson, listJson, oneJson, resolveId, scoped, whereIdOrCode } from '../../db/resource';
import { checkCodeFree, insertOne, rowOf, updateById } from '../../db/resource-writes';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { LOCATION_SUMMARY_JSON } from '../locations/queries';

type Vendor = Schema<'Vendor'>;

export const vendors: ResourceDef = {
  table: 'vendors',
  alias: 'v',
  codeColumn: 'v.code',
  softDelete: true,
  columns: {
    id: idCol('v.id'),
    code: col('v.code'),
    name: col('v.name'),
    location: expr(
      `(SELECT ${LOCATION_SUMMARY_JSON} FROM locations lo WHERE lo.organization_id = v.organization_id AND lo.id = v.location_id AND lo.deleted_at IS NULL)`,
    ),
    type: expr(
      `(SELECT json_build_object('id', vt.id, 'name', vt.name, 'createdAt', api_ts(vt.created_at), 'updatedAt', api_ts(vt.updated_at))
        FROM vendor_types vt WHERE vt.organization_id = v.organization_id AND vt.id = v.vendor_type_id)`,
    ),
    createdAt: tsCol('v.created_at'),
    updatedAt: tsCol('v.updated_at'),
    deletedAt: tsCol('v.deleted_at'),
  },
  writable: ['code', 'name'],
};

export const listVendors = (db: Queryable, orgId: string, params: ListParams, includeDeleted: boolean) =>
  listJson<Vendor>(db, vendors, scoped(db, vendors, orgId, { includeDeleted }), params);

/** By ID or code; a code shared by a live vendor and deleted ones means the live one, else the latest deleted. */
export function getVendor(db: Queryable, orgId: string, idOrCode: string, includeDeleted = false): Promise<Json<Vendor> | undefined> {
  const q = whereIdOrCode(scoped(db, vendors, orgId, { includeDeleted }), vendors, idOrCode).orderByRaw('v.deleted_at DESC NULLS FIRST');
  return oneJson<Vendor>(db, vendors, q);
}

/** The ID of the live vendor behind `:idOrCode` (writes never reach a deleted vendor). */
export const liveVendorId = (db: Queryable, orgId: string, idOrCode: string) => resolveId(db, vendors, orgId, idOrCode);

export async function createVendor(db: Queryable, orgId: string, input: Schema<'VendorCreate'>): Promise<Json<Vendor>> {
  await checkCodeFree(db, vendors, orgId, input.code);
  return insertOne<Vendor>(db, vendors, orgId, rowOf(vendors, input));
}

/** The vendor type of that name, created when absent (one statement, safe under concurrency). */
async function vendorTypeId(db: Queryable, orgId: string, name: string): Promise<string> {
  const { rows } = await db.raw(
    `INSERT INTO vendor_types (organization_id, name) VALUES (?, ?)
     ON CONFLICT (organization_id, name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
    [orgId, name],
  );
  return rows[0].id;
}

export async function updateVendor(db: Knex, orgId: string, idOrCode: string, changes: Schema<'VendorUpdate'>): Promise<Json<Vendor> | undefined> {
  return db.transaction(async (tx) => {
    const id = await liveVendorId(tx, orgId, idOrCode);
    if (!id) return undefined;
    if (changes.code !== undefined) await checkCodeFree(tx, vendors, orgId, changes.code, id);
    const typeId = changes.type === undefined ? undefined : changes.type === null ? null : await vendorTypeId(tx, orgId, changes.type);
    return updateById<Vendor>(tx, vendors, orgId, id, { ...rowOf(vendors, changes), vendor_type_id: typeId });
  });
}

/**
 * Moves the vendor to the location; also returns the location it had, whose `vendors` list loses
 * it (read under the vendor's row lock, so a concurrent move cannot report a stale one).
 */
export async function setVendorLocation(
  db: Queryable,
  orgId: string,
  id: string,
  locationId: string,
): Promise<{ vendor: Json<Vendor>; previousLocationId: string | null }> {
  const [previous] = await db('vendors').where({ organization_id: orgId, id }).forUpdate().select('location_id');
  const vendor = (await updateById<Vendor>(db, vendors, orgId, id, { location_id: locationId }))!;
  return { vendor, previousLocationId: previous?.location_id ?? null };
}

/** Vendors by ID, in the order of `ids` (IDs come from the database, so they are inlined safely as uuids). */
export function vendorsInOrder(db: Queryable, orgId: string, ids: string[]): Promise<Json<Vendor[]>> {
  const q = scoped(db, vendors, orgId).whereRaw('v.id = ANY(?::uuid[])', [ids]);
  return allJson<Vendor>(db, vendors, q, `array_position(ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[], v.id)`);
}
