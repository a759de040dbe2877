/**
 * The benchmark dataset, generated inside PostgreSQL with generate_series (node only sends the
 * statements). Two organizations share the rows 95 / 5; each gets its own master data (tax codes,
 * units, gl codes, cost types, item codes, vendors, groups, locations, jobs, phases, cost
 * categories), orders, line items, attachments, and releases with release items on its
 * hold-for-release orders. Order and release ids are derived from (organization, index) with md5
 * so that items and releases find their parents without a join.
 */

/** Sizes for one organization holding `items` line items. */
export function orgScale(items, orders, bigJobItems) {
  const avgLines = Math.max(1, items / orders);
  return {
    orders,
    // Lines per order cycle through 1..lineMod: mean (lineMod + 1) / 2 = avgLines.
    lineMod: Math.max(1, Math.round(2 * avgLines) - 1),
    jobs: Math.max(20, Math.round(orders / 50)),
    vendors: Math.max(20, Math.round(orders / 60)),
    // Every bigJobEvery-th order belongs to job J-1001: about bigJobItems items.
    bigJobEvery: Math.max(3, Math.round((orders * avgLines) / bigJobItems)),
  };
}

const arr = (values) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;

const CITIES = arr(['Sacramento', 'Elk Grove', 'Roseville', 'Folsom', 'Davis', 'Stockton', 'Modesto', 'Fairfield', 'Vacaville', 'Rocklin', 'Lodi', 'Woodland']);
const STREETS = arr([
  'Kammerer Road',
  'Folsom Boulevard',
  'J Street',
  'Capitol Mall',
  'Power Inn Road',
  'Fair Oaks Boulevard',
  'Sunrise Avenue',
  'Douglas Boulevard',
  'Stockton Boulevard',
  'Watt Avenue',
]);
const PLACES = arr([
  'Riverside',
  'Elk Grove',
  'Oak Park',
  'Natomas',
  'Midtown',
  'Granite Bay',
  'Rancho Cordova',
  'Land Park',
  'West Sacramento',
  'Citrus Heights',
  'Laguna',
  'Arden',
]);
const PROJECTS = arr([
  'Medical Office Building',
  'Distribution Center',
  'High School Modernization',
  'Parking Structure',
  'Apartments',
  'Fire Station',
  'Library Renovation',
  'Water Treatment Upgrade',
  'Retail Center',
  'Transit Center',
  'Senior Living',
  'Tilt-Up Warehouse',
]);
const VENDOR_A = arr([
  'Granite Peak',
  'Sierra',
  'Valley',
  'Redwood',
  'Capitol',
  'Summit',
  'Pacific',
  'Delta',
  'Golden State',
  'Cascade',
  'Bayview',
  'Ironwood',
  'Foothill',
  'Harbor',
  'Mesa',
  'Northgate',
]);
const VENDOR_B = arr([
  'Supply',
  'Lumber',
  'Electric Supply',
  'Plumbing Supply',
  'Ready Mix',
  'Rebar',
  'Steel',
  'Equipment Rentals',
  'Building Products',
  'Hardware',
  'Drywall Supply',
  'Glass',
]);
const MATERIALS = arr([
  '#4 rebar, grade 60, 20 ft',
  '#5 rebar, grade 60, 20 ft',
  '6x6 W2.9xW2.9 welded wire mesh sheet, 8x20 ft',
  '2x4x8 SPF stud',
  '2x6x12 DF #2',
  '3/4 in. CDX plywood 4x8',
  '7/16 in. OSB sheathing 4x8',
  '1/2 in. drywall 4x8',
  '5/8 in. Type X drywall 4x12',
  'Type II portland cement, 94 lb',
  '4000 psi ready-mix concrete',
  '1/2 in. EMT conduit, 10 ft',
  '12/2 Romex NM-B, 250 ft',
  '4 in. PVC sch 40 pipe, 20 ft',
  '3/4 in. type L copper, 20 ft',
  'Simpson A35 framing angle',
  'Simpson HDU5 holdown',
  '16d sinker nails, 50 lb',
  'R-19 fiberglass batt, 15 in.',
  'Tyvek HomeWrap 9x150 ft',
  '20 ga 3-5/8 in. metal stud, 10 ft',
  'Anchor bolt 5/8 x 12 in.',
  'Fire caulk, 10.1 oz',
  'Joint compound, 4.5 gal',
  'Wire ties 6 in., bundle',
  'Form release agent, 5 gal',
  'Backer rod 3/8 in., 500 ft',
  'Silt fence 36 in. x 100 ft',
  'Safety glasses, clear',
  'Scaffold rental, 5 ft frame',
]);
const MANUFACTURERS = arr([
  'Insteel',
  'Simpson Strong-Tie',
  'USG',
  'Georgia-Pacific',
  'Southwire',
  'Charlotte Pipe',
  'Mueller',
  'Owens Corning',
  'DuPont',
  'CEMEX',
  'Hilti',
  'ClarkDietrich',
]);
const UOMS = [
  ['EA', 'Each', 'E'],
  ['C', 'Per hundred', 'C'],
  ['M', 'Per thousand', 'M'],
  ['LF', 'Linear foot', 'E'],
  ['FT', 'Foot', 'E'],
  ['SF', 'Square foot', 'E'],
  ['CY', 'Cubic yard', 'E'],
  ['BOX', 'Box', 'E'],
  ['ROLL', 'Roll', 'E'],
  ['GAL', 'Gallon', 'E'],
  ['LB', 'Pound', 'E'],
  ['TON', 'Ton', 'E'],
];
const TAX_CODES = [
  ['TX-CA-SAC', 'Sacramento County sales tax', 8.75, 'SALES'],
  ['TX-CA-PLA', 'Placer County sales tax', 7.25, 'SALES'],
  ['TX-CA-YOL', 'Yolo County sales tax', 8.25, 'SALES'],
  ['TX-CA-SJ', 'San Joaquin County sales tax', 8.0, 'SALES'],
  ['TX-CA-STA', 'Stanislaus County sales tax', 7.875, 'SALES'],
  ['TX-CA-SOL', 'Solano County sales tax', 7.75, 'SALES'],
  ['TX-CA-ED', 'El Dorado County sales tax', 7.25, 'SALES'],
  ['USE-CA', 'California use tax', 7.25, 'USE'],
  ['USE-NV', 'Nevada use tax', 6.85, 'USE'],
  ['TX-NV-WAS', 'Washoe County sales tax', 8.265, 'SALES'],
  ['EXEMPT', 'Tax exempt (resale)', 0, 'SALES'],
  ['TX-CA-SF', 'San Francisco sales tax', 8.625, 'SALES'],
];
const GL = [
  ['5100-MAT', 'Materials'],
  ['5110-CON', 'Concrete'],
  ['5120-STL', 'Reinforcing steel'],
  ['5130-LUM', 'Lumber'],
  ['5140-ELE', 'Electrical materials'],
  ['5150-PLB', 'Plumbing materials'],
  ['5200-SUB', 'Subcontracts'],
  ['5300-EQP', 'Equipment rental'],
  ['5310-SMT', 'Small tools'],
  ['5400-FRT', 'Freight'],
  ['5500-SAF', 'Safety supplies'],
  ['5600-TMP', 'Temporary facilities'],
];
const COST_TYPES = [
  ['L', 'Labor'],
  ['M', 'Material'],
  ['E', 'Equipment'],
  ['S', 'Subcontract'],
  ['O', 'Other'],
];
const CATEGORIES = [
  ['MAT', 'Materials'],
  ['LAB', 'Labor'],
  ['EQP', 'Equipment'],
  ['SUB', 'Subcontractor'],
  ['FRT', 'Freight'],
  ['RNT', 'Rentals'],
  ['SML', 'Small tools'],
  ['OTH', 'Other'],
];
const PHASES = [
  ['01-100', 'General requirements'],
  ['02-200', 'Site preparation'],
  ['02-300', 'Earthwork'],
  ['03-100', 'Concrete forming'],
  ['03-200', 'Concrete reinforcing'],
  ['03-300', 'Cast-in-place concrete'],
  ['04-200', 'Unit masonry'],
  ['05-100', 'Structural steel'],
  ['05-400', 'Cold-formed metal framing'],
  ['06-100', 'Rough carpentry'],
  ['06-200', 'Finish carpentry'],
  ['07-200', 'Thermal insulation'],
  ['07-900', 'Joint sealants'],
  ['08-100', 'Doors and frames'],
  ['09-200', 'Gypsum board'],
  ['09-900', 'Painting'],
  ['22-100', 'Plumbing piping'],
  ['23-300', 'HVAC ductwork'],
  ['26-050', 'Electrical basics'],
  ['31-200', 'Earth moving'],
];
const GROUPS = [
  ['NORCAL', 'Northern California projects'],
  ['VALLEY', 'Central Valley projects'],
  ['PUBLIC', 'Public works'],
  ['HEALTH', 'Healthcare'],
  ['MFR', 'Multifamily residential'],
  ['IND', 'Industrial'],
];

const values = (rows) => rows.map((r) => `(${r.map((v) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)).join(', ')})`).join(', ');

/** id of the n-th (1-based, cyclic) element of an array expression */
const nth = (array, index) => `(${array})[1 + ((${index}) % array_length(${array}, 1))]`;

/**
 * The statements that fill one organization ($1 = organization id, $2 = user id every record is
 * created by). `s` comes from orgScale.
 */
export function organizationStatements(s) {
  return statements(s).map((sql) => sql.replace(/\$([12])(::text)?/g, (_, n, text) => `$${n}::uuid${text ?? ''}`));
}

function statements(s) {
  const oid = (o) => `md5($1::text || ':order:' || ${o})::uuid`;
  const orderCreated = (o) => `(now() - interval '730 days' + (${o})::float8 / ${s.orders} * interval '729 days')`;
  const lines = (o) => `(1 + ((${o})::bigint * 7919) % ${s.lineMod})`;
  return [
    `INSERT INTO tax_codes (organization_id, code, description, tax_percent, tax_type) SELECT $1, * FROM (VALUES ${values(TAX_CODES)}) v`,
    `INSERT INTO units_of_measure (organization_id, code, description, multiplier) SELECT $1, * FROM (VALUES ${values(UOMS)}) v`,
    `INSERT INTO gl_codes (organization_id, code, description) SELECT $1, * FROM (VALUES ${values(GL)}) v`,
    `INSERT INTO cost_types (organization_id, code, description) SELECT $1, * FROM (VALUES ${values(COST_TYPES)}) v`,
    `INSERT INTO item_codes (organization_id, code, description)
       SELECT $1, 'IC-' || lpad(n::text, 4, '0'), ${nth(MATERIALS, 'n')} FROM generate_series(1, 60) n`,
    `INSERT INTO vendor_types (organization_id, name) SELECT $1, * FROM (VALUES ('Distributor'), ('Manufacturer'), ('Rental'), ('Subcontractor')) v`,
    `INSERT INTO groups (organization_id, code, name, created_by_id) SELECT $1, v.*, $2 FROM (VALUES ${values(GROUPS)}) v`,
    `INSERT INTO phases (organization_id, code, description, default_gl_code) SELECT $1, v.*, '5100-MAT' FROM (VALUES ${values(PHASES)}) v`,
    `INSERT INTO cost_categories (organization_id, code, description) SELECT $1, * FROM (VALUES ${values(CATEGORIES)}) v`,
    // Branch offices and warehouses, then one jobsite per job.
    `INSERT INTO locations (organization_id, name, address_line1, city, state, zipcode, phone, type)
       SELECT $1, ${nth(CITIES, 'n')} || CASE WHEN n % 2 = 0 THEN ' warehouse' ELSE ' branch office' END,
         (100 + n * 37) || ' ' || ${nth(STREETS, 'n')}, ${nth(CITIES, 'n')}, 'CA', (95600 + n * 7)::text,
         '(916) 555-' || lpad((1000 + n * 13)::text, 4, '0'), CASE WHEN n % 2 = 0 THEN 'Warehouse' ELSE 'Branch' END
       FROM generate_series(1, 6) n`,
    `INSERT INTO vendors (organization_id, code, name, vendor_type_id)
       SELECT $1, 'V-' || lpad(n::text, 4, '0'),
         ${nth(VENDOR_A, 'n')} || ' ' || ${nth(VENDOR_B, 'n / 16')} || CASE WHEN n > 192 THEN ' #' || (n / 192 + 1) ELSE '' END,
         (SELECT id FROM vendor_types WHERE organization_id = $1 ORDER BY name LIMIT 1 OFFSET n % 4)
       FROM generate_series(1, ${s.vendors}) n`,
    `INSERT INTO jobs (organization_id, code, name, default_tax_code_id, start_date, state)
       SELECT $1, 'J-' || (1000 + n), ${nth(PLACES, 'n')} || ' ' || ${nth(PROJECTS, 'n * 5 + n / 12')} || CASE WHEN n > 144 THEN ' Phase ' || (n / 144 + 1) ELSE '' END,
         (SELECT id FROM tax_codes WHERE organization_id = $1 ORDER BY code LIMIT 1 OFFSET n % 7),
         date_trunc('day', now() - interval '800 days' + n * interval '2 days'), CASE WHEN n % 9 = 0 THEN 'CLOSED' ELSE 'OPEN' END
       FROM generate_series(1, ${s.jobs}) n`,
    `INSERT INTO locations (organization_id, name, address_line1, city, state, zipcode, directions, type, integration_data)
       SELECT $1, j.name || ' jobsite', (1000 + n * 11) || ' ' || ${nth(STREETS, 'n')}, ${nth(CITIES, 'n')}, 'CA', (95600 + n % 200)::text,
         'Gate ' || (1 + n % 4) || ', check in at the site trailer', 'Jobsite', jsonb_build_object('jobCode', j.code)
       FROM (SELECT j.*, row_number() OVER (ORDER BY j.code) AS n FROM jobs j WHERE j.organization_id = $1) j`,
    `UPDATE jobs j SET default_location_id = l.id FROM locations l
       WHERE j.organization_id = $1 AND l.organization_id = $1 AND l.integration_data->>'jobCode' = j.code`,
    `INSERT INTO job_locations (organization_id, job_id, location_id) SELECT $1, id, default_location_id FROM jobs WHERE organization_id = $1`,
    `INSERT INTO job_groups (organization_id, job_id, group_id)
       SELECT $1, j.id, g.ids[1 + j.n % 6] FROM (SELECT id, row_number() OVER (ORDER BY code) AS n FROM jobs WHERE organization_id = $1) j,
         (SELECT array_agg(id ORDER BY code) AS ids FROM groups WHERE organization_id = $1) g`,
    // Job-level phases of the big job (J-1001).
    `INSERT INTO phases (organization_id, job_id, code, description)
       SELECT $1, j.id, p.code || '-A', p.description || ' (area A)' FROM jobs j, (VALUES ${values(PHASES.slice(0, 8))}) p(code, description)
       WHERE j.organization_id = $1 AND j.code = 'J-1001'`,

    `INSERT INTO orders (id, organization_id, job_id, vendor_id, delivery_location_id, created_by_id, updated_by_id, gl_code_id, tax_code_id,
         purchase_order_number, title, notes, delivery_instructions, discount, shipping_cost, field_contact_name, field_contact_phone,
         flagged, flagged_at, flag_message, tax_exempt, integration_state, integration_message, integration_last_sync, mode,
         need_by_date_day, need_by_window, state, type, received_state, created_at, updated_at, deleted_at)
       SELECT ${oid('o')}, $1, x.job_id, ${nth('v.ids', 'o::bigint * 13')}, x.location_id, $2, $2,
         ${nth('gl.ids', 'o')}, ${nth('tx.ids', 'o % 7')},
         x.job_code || '-' || lpad(o::text, 5, '0'),
         ${nth(MATERIALS, 'o')} || ' for ' || x.job_code,
         CASE WHEN o % 4 = 0 THEN 'Call the superintendent 30 minutes before arrival.' END,
         CASE WHEN o % 3 = 0 THEN 'Deliver to laydown area B, forklift on site.' END,
         CASE WHEN o % 10 = 0 THEN 2.5 END, CASE WHEN o % 5 = 0 THEN round((o % 400 + 50)::numeric, 2)::float8 END,
         'Dana Whitfield', '(916) 555-0142',
         o % 97 = 0, CASE WHEN o % 97 = 0 THEN ${orderCreated('o')} + interval '2 days' END, CASE WHEN o % 97 = 0 THEN 'Price differs from the quote' END,
         CASE WHEN o % 50 = 0 THEN true END,
         (ARRAY['LINKED','LINKED','LINKED','NOT_LINKED','OUT_OF_SYNC','LINKING','ERROR'])[1 + o % 7],
         CASE WHEN o % 7 = 6 THEN 'Vendor ' || ${nth('v.codes', 'o::bigint * 13')} || ' is not mapped in the ERP' END,
         CASE WHEN o % 7 IN (0, 1, 2, 4) THEN ${orderCreated('o')} + interval '1 hour' END,
         CASE o % 25 WHEN 0 THEN 'REQUEST_FOR_QUOTE' WHEN 1 THEN 'PRE_ACKNOWLEDGED' ELSE 'ISSUE_PO' END,
         date_trunc('day', ${orderCreated('o')} + interval '10 days'),
         (ARRAY['ASAP','AMEarly','AM','PM','PMLate','UNSPECIFIED'])[1 + o % 6],
         CASE WHEN o % 31 = 0 THEN 'ACTIVE' ELSE (ARRAY['ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE','ACTIVE',
           'COMPLETE','COMPLETE','COMPLETE','DRAFT','DRAFT','CANCELLED','FINALIZING','BID_ACTIVE'])[1 + o % 20] END,
         CASE WHEN o % 31 = 0 THEN 'HOLD_FOR_RELEASE' WHEN o % 17 = 0 THEN 'MAJOR' ELSE 'STANDARD' END,
         (ARRAY['NO_DELIVERIES','PARTIALLY_RECEIVED','FULLY_RECEIVED'])[1 + o % 3],
         ${orderCreated('o')}, ${orderCreated('o')} + interval '3 hours',
         CASE WHEN o % 211 = 0 AND o % 31 <> 0 THEN ${orderCreated('o')} + interval '1 day' END
       FROM generate_series(1, ${s.orders}) o
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids, array_agg(code ORDER BY code) AS codes FROM vendors WHERE organization_id = $1) v
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM gl_codes WHERE organization_id = $1) gl
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM tax_codes WHERE organization_id = $1) tx
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids, array_agg(code ORDER BY code) AS codes, array_agg(default_location_id ORDER BY code) AS locs
                   FROM jobs WHERE organization_id = $1) j
       CROSS JOIN LATERAL (SELECT CASE WHEN o % ${s.bigJobEvery} = 0 THEN 1 ELSE 2 + (o::bigint * 7) % (array_length(j.ids, 1) - 1) END AS k) pick
       CROSS JOIN LATERAL (SELECT j.ids[pick.k] AS job_id, j.codes[pick.k] AS job_code, j.locs[pick.k] AS location_id) x`,

    `INSERT INTO items (organization_id, order_id, line_number, description, quantity, extended_quantity, units_of_measure, units_of_measure_id,
         requested_uom, pricing_uom, extended_uom, unit_price, scaled_unit_price, unit_discount, ext_price, ext_price_including_tax,
         backorder_lead_time, backorder_quantity, need_by_date, expected_delivery_time, manufacturer, manufacturer_part_number,
         universal_product_code, vendor_part_number, notes, item_code_id, item_code_text, cost_category_id, cost_type_id, gl_code_id,
         tax_code_id, phase_id, sub_job_id, created_at, updated_at)
       SELECT $1, ${oid('o')}, l, ${nth(MATERIALS, 'o::bigint * 31 + l')}, q.qty, q.qty, u.code, u.id,
         u.code, u.code, u.code, q.price, q.price, CASE WHEN (o + l) % 9 = 0 THEN 2.5 END,
         round((q.qty * q.price * CASE WHEN (o + l) % 9 = 0 THEN 0.975 ELSE 1 END / u.factor)::numeric, 2)::float8,
         round((q.qty * q.price * CASE WHEN (o + l) % 9 = 0 THEN 0.975 ELSE 1 END / u.factor * 1.0875)::numeric, 2)::float8,
         CASE WHEN (o + l) % 23 = 0 THEN ${orderCreated('o')} + interval '21 days' END, CASE WHEN (o + l) % 23 = 0 THEN floor(q.qty / 3) END,
         date_trunc('day', ${orderCreated('o')} + interval '10 days'), ${orderCreated('o')} + interval '9 days 7 hours',
         ${nth(MANUFACTURERS, 'o::bigint * 31 + l')}, 'MPN-' || lpad(((o::bigint * 31 + l) % 30)::text, 3, '0') || '-' || (100 + l),
         CASE WHEN l % 3 = 0 THEN (700000000000 + (o::bigint * 31 + l) % 99999999999)::text END,
         'VP-' || lpad(((o::bigint * 31 + l) % 30)::text, 3, '0'),
         CASE WHEN (o + l) % 13 = 0 THEN 'Match existing finish' END,
         CASE WHEN l % 4 = 0 THEN ${nth('ic.ids', 'o::bigint * 31 + l')} END, CASE WHEN l % 4 = 0 THEN 'IC-' || lpad((1 + (o::bigint * 31 + l) % 60)::text, 4, '0') END,
         ${nth('cc.ids', 'l')}, ${nth('ct.ids', 'o + l')}, ${nth('gl.ids', 'o')}, ${nth('tx.ids', 'o % 7')}, ${nth('ph.ids', 'o + l')},
         NULL, ${orderCreated('o')} + l * interval '1 millisecond', ${orderCreated('o')} + l * interval '1 millisecond'
       FROM generate_series(1, ${s.orders}) o
       CROSS JOIN LATERAL generate_series(1, ${lines('o')}) l
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids, array_agg(code ORDER BY code) AS codes, array_agg(multiplier ORDER BY code) AS m
                   FROM units_of_measure WHERE organization_id = $1) uo
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM item_codes WHERE organization_id = $1) ic
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM cost_categories WHERE organization_id = $1) cc
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM cost_types WHERE organization_id = $1) ct
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM gl_codes WHERE organization_id = $1) gl
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM tax_codes WHERE organization_id = $1) tx
       CROSS JOIN (SELECT array_agg(id ORDER BY code) AS ids FROM phases WHERE organization_id = $1 AND job_id IS NULL) ph
       CROSS JOIN LATERAL (SELECT 1 + (o::bigint * 17 + l * 5) % array_length(uo.ids, 1) AS k) uk
       CROSS JOIN LATERAL (SELECT uo.ids[uk.k] AS id, uo.codes[uk.k] AS code,
                                  CASE uo.m[uk.k] WHEN 'C' THEN 100 WHEN 'M' THEN 1000 ELSE 1 END AS factor) u
       CROSS JOIN LATERAL (SELECT (1 + (o::bigint * l * 37) % 500)::float8 AS qty,
                                  round((1 + ((o::bigint * 13 + l * 7) % 50000) / 100.0)::numeric, 2)::float8 AS price) q`,

    `INSERT INTO files (organization_id, name, url, created_at, updated_at)
       SELECT $1, 'quote-' || lpad(o::text, 5, '0') || '.pdf', 'https://files.procurement.example/quotes/' || md5($1::text || o) || '.pdf',
         ${orderCreated('o')}, ${orderCreated('o')}
       FROM generate_series(1, ${s.orders}) o WHERE o % 50 = 0`,
    `INSERT INTO order_attachments (organization_id, order_id, file_id, identifier, created_at, updated_at)
       SELECT $1, ${oid('substring(f.name from 7 for 5)::int')}, f.id, 'Vendor quote', f.created_at, f.created_at
       FROM files f WHERE f.organization_id = $1 AND f.name LIKE 'quote-%'`,

    // Hold-for-release orders (every 31st): 2 to 4 releases each, drawing on their first three lines.
    `INSERT INTO releases (id, organization_id, order_id, delivery_location_id, created_by_id, release_number, need_by_date_day, need_by_window,
         notes, cancelled_at, cancelled_reason, created_at, updated_at)
       SELECT md5($1::text || ':release:' || o || ':' || r)::uuid, $1, ${oid('o')}, o2.delivery_location_id, $2, r::text,
         date_trunc('day', ${orderCreated('o')} + r * interval '14 days'), (ARRAY['AM','PM','ASAP'])[1 + r % 3],
         CASE WHEN r = 1 THEN 'First draw: foundations' END,
         CASE WHEN o % 5 = 0 AND r = 2 THEN ${orderCreated('o')} + r * interval '7 days' END,
         CASE WHEN o % 5 = 0 AND r = 2 THEN 'Schedule moved, reissued as the next release' END,
         ${orderCreated('o')} + r * interval '7 days', ${orderCreated('o')} + r * interval '7 days'
       FROM generate_series(31, ${s.orders}, 31) o
       CROSS JOIN LATERAL generate_series(1, 2 + o % 3) r
       JOIN orders o2 ON o2.organization_id = $1 AND o2.id = ${oid('o')}`,
    `INSERT INTO release_items (organization_id, release_id, item_id, quantity_released, backorder_quantity, created_at, updated_at)
       SELECT $1, r.id, i.id, least(i.quantity, 5 * r.release_number::int), CASE WHEN i.line_number = 2 THEN 1 ELSE 0 END, r.created_at, r.created_at
       FROM releases r JOIN items i ON i.organization_id = r.organization_id AND i.order_id = r.order_id AND i.line_number <= 3
       WHERE r.organization_id = $1`,
  ];
}

/**
 * Invoices for the peer rows (BENCH_PEERS): every second live order of the organization ($1, user
 * $2) is invoiced with a copy of its lines; every 97th invoice is deleted. Left out of the default
 * run, whose dataset stays as it was.
 */
export function invoiceStatements() {
  return [
    `INSERT INTO invoices (id, organization_id, created_by_id, job_id, vendor_id, order_id, title, invoice_number, state, invoice_date, due_date,
         terms, created_at, updated_at, deleted_at)
       SELECT md5(o.id::text || ':invoice')::uuid, $1, $2, o.job_id, o.vendor_id, o.id, 'Invoice for ' || o.purchase_order_number,
         'INV-' || o.purchase_order_number, (ARRAY['INBOX','PENDING','APPROVED','CLOSED'])[1 + o.n % 4],
         o.created_at + interval '12 days', o.created_at + interval '42 days', 'Net 30',
         o.created_at + interval '12 days', o.created_at + interval '12 days', CASE WHEN o.n % 194 = 0 THEN o.created_at + interval '13 days' END
       FROM (SELECT o.*, row_number() OVER (ORDER BY o.created_at, o.id) AS n FROM orders o WHERE o.organization_id = $1 AND o.deleted_at IS NULL) o
       WHERE o.n % 2 = 0`,
    `INSERT INTO invoice_items (organization_id, invoice_id, line_number, description, ship_quantity, extended_quantity, unit_price, scaled_unit_price,
         ext_price, ext_price_including_tax, units_of_measure, requested_uom, pricing_uom, extended_uom, tax_rate, has_exception,
         manufacturer_part_number, universal_product_code, tax_code_id, phase_id, cost_category_id, gl_code_id, cost_type_id, item_code_id,
         item_code_text, created_at, updated_at)
       SELECT i.organization_id, inv.id, i.line_number, i.description, i.quantity, i.extended_quantity, i.unit_price, i.scaled_unit_price,
         i.ext_price, i.ext_price_including_tax, i.units_of_measure, i.requested_uom, i.pricing_uom, i.extended_uom, 8.75, i.line_number % 17 = 0,
         i.manufacturer_part_number, i.universal_product_code, i.tax_code_id, i.phase_id, i.cost_category_id, i.gl_code_id, i.cost_type_id,
         i.item_code_id, i.item_code_text, inv.created_at + i.line_number * interval '1 millisecond', inv.created_at + i.line_number * interval '1 millisecond'
       FROM invoices inv JOIN items i ON i.organization_id = inv.organization_id AND i.order_id = inv.order_id
       WHERE inv.organization_id = $1`,
  ];
}
