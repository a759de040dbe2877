/**
 * The floor: what the benchmarked requests cost with nothing but node:http, pg and ONE hand-written
 * SQL statement per request that authenticates (API key hash lookup folded in) and builds the
 * whole response body as JSON text in PostgreSQL. Same responses as the service for these
 * requests (bench/run.mjs checks), no validation, no routing library.
 *
 * Env: DATABASE_URL, PORT, DB_POOL_MAX (default 10, as the service).
 */
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX || 10), application_name: 'bench-floor' });

// $1 is always the API key hash; a statement returns no row when the key is not live.
const KEY = `k AS (SELECT organization_id AS org FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL)`;
const brief = (a, extra = '') => `CASE WHEN ${a}.id IS NULL THEN NULL ELSE json_build_object('id', ${a}.id, 'code', ${a}.code${extra}) END`;

const ITEM_FROM = `FROM k JOIN items i ON i.organization_id = k.org
  JOIN orders io ON io.organization_id = i.organization_id AND io.id = i.order_id AND io.deleted_at IS NULL`;
const ITEM_WHERE = `WHERE ($4::uuid IS NULL OR io.job_id = $4::uuid)`;
const lookup = (table, alias, column) => `LEFT JOIN ${table} ${alias} ON ${alias}.organization_id = i.organization_id AND ${alias}.id = i.${column}`;

/** GET /items ($2 limit, $3 offset, $4 jobId filter or null) */
const ITEMS = `WITH ${KEY}
SELECT json_build_object(
  'meta', json_build_object('total', (SELECT count(*) ${ITEM_FROM} ${ITEM_WHERE}), 'limit', $2::int, 'offset', $3::int),
  'data', (SELECT coalesce(json_agg(p), '[]'::json) FROM (
    SELECT i.id AS "id", i.line_number AS "lineNumber", i.order_id AS "orderId", i.description AS "description", i.quantity AS "quantity",
      i.extended_quantity AS "extendedQuantity", i.units_of_measure AS "unitsOfMeasure", i.units_of_measure_id AS "unitsOfMeasureId",
      i.requested_uom AS "requestedUOM", i.pricing_uom AS "pricingUOM", i.extended_uom AS "extendedUOM", i.unit_price AS "unitPrice",
      i.scaled_unit_price AS "scaledUnitPrice", i.unit_discount::float8 AS "unitDiscount", i.ext_price AS "extPrice",
      i.ext_price_including_tax AS "extPriceIncludingTax", api_ts(i.backorder_lead_time) AS "backorderLeadTime",
      i.backorder_quantity AS "backorderQuantity", api_ts(i.need_by_date) AS "needByDate", api_ts(i.expected_delivery_time) AS "expectedDeliveryTime",
      i.manufacturer AS "manufacturer", i.manufacturer_part_number AS "manufacturerPartNumber", i.universal_product_code AS "universalProductCode",
      i.vendor_part_number AS "vendorPartNumber", i.notes AS "notes", i.custom_column_value AS "customColumnValue",
      ${brief('iic', ", 'description', iic.description")} AS "itemCode", i.item_code_id AS "itemCodeId", i.item_code_text AS "itemCodeText",
      io.job_id AS "jobId", io.vendor_id AS "vendorId", iph.code AS "phaseCodeCode", icc.code AS "costCategoryCode", igl.code AS "glCodeCode",
      itx.code AS "taxCodeCode", ict.code AS "costTypeCode", i.costs_inventory_item_ledger_entry_id AS "costsInventoryItemLedgerEntryId",
      api_ts(i.created_at) AS "createdAt", api_ts(i.updated_at) AS "updatedAt"
    ${ITEM_FROM}
    ${lookup('item_codes', 'iic', 'item_code_id')} ${lookup('cost_categories', 'icc', 'cost_category_id')} ${lookup('cost_types', 'ict', 'cost_type_id')}
    ${lookup('gl_codes', 'igl', 'gl_code_id')} ${lookup('tax_codes', 'itx', 'tax_code_id')} ${lookup('phases', 'iph', 'phase_id')}
    ${ITEM_WHERE}
    ORDER BY i.created_at DESC, i.id DESC LIMIT $2 OFFSET $3) p)
)::text AS json FROM k`;

/** GET /orders ($2 limit, $3 offset), oldest first */
const ORDERS = `WITH ${KEY}
SELECT coalesce(json_agg(p), '[]'::json)::text AS json FROM (
  SELECT o.id AS "id", api_ts(o.created_at) AS "createdAt", api_ts(o.updated_at) AS "updatedAt", o.created_by_id AS "createdById",
    o.updated_by_id AS "updatedById", o.job_id AS "jobId", o.vendor_id AS "vendorId", o.delivery_location_id AS "deliveryLocationId",
    o.delivery_instructions AS "deliveryInstructions", o.discount AS "discount", o.field_contact_name AS "fieldContactName",
    o.field_contact_phone AS "fieldContactPhone", o.flagged AS "flagged", api_ts(o.flagged_at) AS "flaggedAt", o.flag_message AS "flagMessage",
    ${brief('ogl')} AS "glCode", api_ts(o.integration_last_sync) AS "integrationLastSync", o.integration_message AS "integrationMessage",
    o.integration_state AS "integrationState", (o.type = 'MAJOR') AS "isProjectPO", o.mode AS "mode", api_ts(o.need_by_date_day) AS "needByDateDay",
    o.need_by_window AS "needByWindow", o.notes AS "notes", o.purchase_order_number AS "purchaseOrderNumber", o.shipping_cost AS "shippingCost",
    o.state AS "state", ${brief('otx', ", 'taxPercent', otx.tax_percent")} AS "taxCode",
    (SELECT coalesce(json_agg(json_build_object(
        'id', oa.id, 'createdAt', api_ts(oa.created_at), 'updatedAt', api_ts(oa.updated_at), 'identifier', oa.identifier,
        'file', json_build_object('id', f.id, 'name', f.name, 'url', f.url, 'createdAt', api_ts(f.created_at), 'updatedAt', api_ts(f.updated_at))
      ) ORDER BY oa.created_at, oa.id), '[]'::json)
      FROM order_attachments oa JOIN files f ON f.organization_id = oa.organization_id AND f.id = oa.file_id
      WHERE oa.organization_id = o.organization_id AND oa.order_id = o.id) AS "attachments",
    o.tax_exempt AS "taxExempt", o.type AS "type", o.received_state AS "receivedState", o.custom_column_value AS "customColumnValue",
    o.title AS "title", o.off_rent_date AS "offRentDate", o.off_rent_number AS "offRentNumber", o.distributor_contact_name AS "distributorContactName",
    CASE WHEN o.mode = 'REQUEST_FOR_QUOTE' OR org.header_custom_field_name IS NULL THEN NULL ELSE o.header_custom_field_value END AS "headerCustomFieldValue"
  FROM k JOIN orders o ON o.organization_id = k.org AND o.deleted_at IS NULL
  JOIN organizations org ON org.id = o.organization_id
  LEFT JOIN gl_codes ogl ON ogl.organization_id = o.organization_id AND ogl.id = o.gl_code_id
  LEFT JOIN tax_codes otx ON otx.organization_id = o.organization_id AND otx.id = o.tax_code_id
  ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3) p, k`;

const jobJson = (j) => `json_build_object('id', ${j}.id, 'code', ${j}.code, 'name', ${j}.name, 'createdAt', api_ts(${j}.created_at),
  'updatedAt', api_ts(${j}.updated_at), 'defaultLocationId', ${j}.default_location_id, 'defaultTaxCodeId', ${j}.default_tax_code_id,
  'startDate', api_ts(${j}.start_date), 'state', ${j}.state,
  'groups', (SELECT coalesce(json_agg(json_build_object('id', g.id, 'code', g.code, 'name', g.name, 'createdAt', api_ts(g.created_at),
      'updatedAt', api_ts(g.updated_at), 'deletedAt', api_ts(g.deleted_at), 'createdById', g.created_by_id) ORDER BY g.name, g.id), '[]'::json)
    FROM job_groups jg JOIN groups g ON g.organization_id = jg.organization_id AND g.id = jg.group_id
    WHERE jg.organization_id = ${j}.organization_id AND jg.job_id = ${j}.id AND g.deleted_at IS NULL))`;

/** GET /jobs/:code ($2 code); a row with a null json when the key is fine but the job is missing */
const JOB = `WITH ${KEY}
SELECT (SELECT ${jobJson('j')}::text FROM jobs j WHERE j.organization_id = k.org AND j.code = $2) AS json FROM k`;

/** GET /releases ($2 limit, $3 offset), newest first, cancelled ones left out */
const RELEASE_COST = `round(ri.quantity_released * coalesce(i.unit_price::numeric, 0) * (1 - coalesce(i.unit_discount, 0) / 100)
  / (CASE i.units_of_measure WHEN 'M' THEN 1000 WHEN 'C' THEN 100 ELSE 1 END), 2)`;
const RELEASE_ITEMS = `FROM release_items ri JOIN items i ON i.organization_id = ri.organization_id AND i.id = ri.item_id
  CROSS JOIN LATERAL (SELECT ${RELEASE_COST} AS total) cost WHERE ri.organization_id = r.organization_id AND ri.release_id = r.id`;
const RELEASE_FROM = `FROM k JOIN releases r ON r.organization_id = k.org AND r.cancelled_at IS NULL
  JOIN orders o ON o.organization_id = r.organization_id AND o.id = r.order_id AND o.deleted_at IS NULL`;
const RELEASES = `WITH ${KEY}
SELECT json_build_object(
  'meta', json_build_object('total', (SELECT count(*) ${RELEASE_FROM}), 'limit', $2::int, 'offset', $3::int),
  'data', (SELECT coalesce(json_agg(p), '[]'::json) FROM (
    SELECT r.id AS "id", r.order_id AS "orderId", o.purchase_order_number AS "purchaseOrderNumber", r.release_number AS "releaseNumber",
      api_ts(r.need_by_date_day) AS "needByDateDay", r.need_by_window AS "needByWindow", r.notes AS "notes", r.additional_notes AS "additionalNotes",
      api_ts(r.cancelled_at) AS "cancelledAt", r.cancelled_reason AS "cancelledReason", x.total AS "totalCost",
      CASE WHEN loc.id IS NULL THEN NULL ELSE json_build_object('id', loc.id, 'name', loc.name) END AS "deliveryLocation",
      x.items AS "releaseItems", api_ts(r.created_at) AS "createdAt", api_ts(r.updated_at) AS "updatedAt", r.created_by_id AS "createdById"
    ${RELEASE_FROM}
    LEFT JOIN locations loc ON loc.organization_id = r.organization_id AND loc.id = r.delivery_location_id
    CROSS JOIN LATERAL (SELECT coalesce(sum(cost.total), 0) AS total, coalesce(json_agg(json_build_object(
        'id', ri.id, 'releaseId', ri.release_id, 'lineItemId', ri.item_id, 'requisitionItemId', ri.requisition_item_id,
        'quantityReleased', ri.quantity_released, 'backorderQuantity', ri.backorder_quantity, 'totalCost', cost.total,
        'lineItem', json_build_object('id', i.id, 'description', i.description, 'unitPrice', coalesce(i.unit_price, 0), 'extPrice', cost.total),
        'createdAt', api_ts(ri.created_at), 'updatedAt', api_ts(ri.updated_at)
      ) ORDER BY i.line_number, ri.created_at, ri.id), '[]'::json) AS items ${RELEASE_ITEMS}) x
    ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3) p)
)::text AS json FROM k`;

/** POST /jobs/batch ($2 the inputs as JSON): one set-based upsert, jobs returned in input order */
const JOBS_BATCH = `WITH ${KEY},
input AS (SELECT e.ord, r.* FROM json_array_elements($2::json) WITH ORDINALITY AS e(v, ord)
  CROSS JOIN LATERAL json_to_record(e.v) AS r(code text, name text, "defaultTaxCodeId" uuid, "startDate" timestamptz, state text)),
up AS (INSERT INTO jobs (organization_id, code, name, default_tax_code_id, start_date, state)
  SELECT k.org, code, name, "defaultTaxCodeId", "startDate", coalesce(state, 'OPEN') FROM k, input
  ON CONFLICT (organization_id, code) DO UPDATE SET name = EXCLUDED.name, default_tax_code_id = EXCLUDED.default_tax_code_id,
    start_date = EXCLUDED.start_date, state = EXCLUDED.state, updated_at = now()
  RETURNING *)
SELECT (SELECT coalesce(json_agg(${jobJson('up')} ORDER BY input.ord), '[]'::json) FROM up JOIN input USING (code))::text AS json FROM k`;

const PROBLEM = (status, title, detail) => JSON.stringify({ type: 'about:blank', title, status, detail });

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const int = (v, fallback) => (v === null || v === '' || !/^\d+$/.test(v) ? fallback : Number(v));

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

async function route(req) {
  const url = new URL(req.url, 'http://floor');
  const q = url.searchParams;
  const p = url.pathname;
  if (req.method === 'GET' && p === '/items') return [ITEMS, [Math.min(int(q.get('limit'), 500), 2500), int(q.get('offset'), 0), q.get('filter[jobId]')]];
  if (req.method === 'GET' && p === '/orders') return [ORDERS, [Math.min(int(q.get('limit'), 100), 1000), int(q.get('offset'), 0)]];
  if (req.method === 'GET' && p === '/releases') return [RELEASES, [Math.min(int(q.get('limit'), 100), 500), int(q.get('offset'), 0)]];
  if (req.method === 'GET' && p.startsWith('/jobs/') && p.indexOf('/', 6) < 0) return [JOB, [decodeURIComponent(p.slice(6))]];
  if (req.method === 'POST' && p === '/jobs/batch') return [JOBS_BATCH, [JSON.stringify(JSON.parse(await readBody(req)).inputs)]];
  return undefined;
}

const server = createServer(async (req, res) => {
  try {
    const found = await route(req);
    if (!found) return send(res, 404, PROBLEM(404, 'Not Found', `No route ${req.method} ${req.url}`));
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const hash = createHash('sha256').update(m ? m[1] : '').digest('hex');
    const [sql, params] = found;
    const { rows } = await pool.query(sql, [hash, ...params]);
    if (!rows.length) return send(res, 401, PROBLEM(401, 'Unauthorized', 'The API key is invalid or has been revoked.'));
    if (rows[0].json === null) return send(res, 404, PROBLEM(404, 'Not Found', `No job matches ${params[0]}.`));
    send(res, 200, rows[0].json);
  } catch (err) {
    send(res, 500, PROBLEM(500, 'Internal Server Error', String(err?.message ?? err)));
  }
});

server.listen(Number(process.env.PORT || 3100), '127.0.0.1', () => console.log(`floor listening on ${process.env.PORT || 3100}`));
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
