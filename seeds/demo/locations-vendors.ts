import type { DemoPart } from './context';

/** Locations of every LocationType (one warehouse) and vendors: one typed with a location, one deleted. */
export const seedLocationsAndVendors: DemoPart = async ({ db, orgId, remember, ref }) => {
  const taxCa = ref('taxCode', 'TX-CA');
  const locations = [
    {
      name: 'Riverside MOB jobsite',
      type: 'Jobsite',
      address_line1: '4100 Riverside Drive',
      address_line2: 'Gate 3',
      city: 'Sacramento',
      state: 'CA',
      zipcode: '95833',
      directions: 'Enter from Garden Hwy; deliveries at the north laydown yard.',
      phone: '+1 916 555 0142',
      default_tax_code_id: taxCa,
      latitude: 38.6012,
      longitude: -121.5087,
    },
    {
      name: 'Elk Grove DC jobsite',
      type: 'Jobsite',
      address_line1: '9800 Kammerer Road',
      city: 'Elk Grove',
      state: 'CA',
      zipcode: '95757',
      directions: 'Trailer at the southeast corner of the pad.',
      phone: '+1 916 555 0177',
      default_tax_code_id: taxCa,
    },
    {
      name: 'Folsom Elementary jobsite',
      type: 'Jobsite',
      address_line1: '1200 Riley Street',
      city: 'Folsom',
      state: 'CA',
      zipcode: '95630',
      default_tax_code_id: taxCa,
    },
    { name: 'Natomas Fire Station 44 jobsite', type: 'Jobsite', address_line1: '3500 Del Paso Road', city: 'Sacramento', state: 'CA', zipcode: '95834' },
    {
      name: 'Rancho Cordova warehouse',
      type: 'Warehouse',
      address_line1: '11290 Pyrites Way',
      address_line2: 'Bay 6',
      city: 'Rancho Cordova',
      state: 'CA',
      zipcode: '95670',
      phone: '+1 916 555 0160',
      latitude: 38.5897,
      longitude: -121.2733,
    },
    {
      name: 'Summit Ridge head office',
      type: 'Office',
      address_line1: '500 Capitol Mall',
      address_line2: 'Suite 1800',
      city: 'Sacramento',
      state: 'CA',
      zipcode: '95814',
      phone: '+1 916 555 0100',
    },
    { name: 'Summit Ridge accounts payable', type: 'Billing', address_line1: 'PO Box 2290', city: 'Sacramento', state: 'CA', zipcode: '95812' },
    { name: 'Reno branch', type: 'Branch', address_line1: '200 S Virginia Street', city: 'Reno', state: 'NV', zipcode: '89501', phone: '+1 775 555 0123' },
    {
      name: 'Ferguson West Sacramento will call',
      type: 'Will_Call',
      address_line1: '1200 Industrial Blvd',
      city: 'West Sacramento',
      state: 'CA',
      zipcode: '95691',
      phone: '+1 916 555 0199',
    },
    { name: 'Equipment laydown lot', type: 'Other', city: 'Elk Grove', state: 'CA', directions: 'Gravel lot behind the Kammerer Road substation.' },
  ];
  const inserted = await db('locations')
    .insert(locations.map((l) => ({ ...l, organization_id: orgId })))
    .returning(['id', 'name']);
  for (const l of inserted) remember('location', l.name, l.id);

  const [plumbing] = await db('vendor_types').insert({ organization_id: orgId, name: 'Plumbing supply' }).returning('id');
  const [electrical] = await db('vendor_types').insert({ organization_id: orgId, name: 'Electrical supply' }).returning('id');
  const vendors = [
    {
      code: 'V-FERGUSON',
      name: 'Ferguson Enterprises',
      vendor_type_id: plumbing.id,
      location_id: inserted.find((l) => l.name === 'Ferguson West Sacramento will call')!.id,
    },
    { code: 'V-GRAYBAR', name: 'Graybar Electric', vendor_type_id: electrical.id, location_id: null },
    { code: 'V-WHITECAP', name: 'White Cap Construction Supply', vendor_type_id: null, location_id: null },
    { code: 'V-HDSUPPLY', name: 'HD Supply', vendor_type_id: null, location_id: null },
  ];
  const rows = await db('vendors')
    .insert(vendors.map((v) => ({ ...v, organization_id: orgId })))
    .returning(['id', 'code']);
  for (const v of rows) remember('vendor', v.code, v.id);
  // A vendor the company stopped buying from, soft-deleted, so includeDeleted has something to show.
  await db('vendors').insert({ organization_id: orgId, code: 'V-ACME-OLD', name: 'Acme Building Materials (closed)', deleted_at: db.fn.now() });
};
