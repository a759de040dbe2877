/**
 * The floor's statements: one per request, authenticating by the API key hash ($1) and building the
 * whole body as JSON text in PostgreSQL.
 */
// $1 is always the API key hash. The organization is a scalar subquery (an InitPlan), so the
// planner still walks the (organization_id, created_at, id) indexes in order; `ok` is false when
// the key is not live.
const ORG = `(SELECT organization_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL)`;
const OK = `${ORG} IS NOT NULL AS ok`;
const brief = (a, extra = '') => `CASE WHEN ${a}.id IS NULL THEN NULL ELSE json_build_object('id', ${a}.id, 'code', ${a}.code${extra}) END`;

// The order's facts (deleted, job, vendor) are copied onto its items by triggers and the visible
// items are counted in live_row_counts (migrations/20261124070000_item_parent_facts.ts), as the
// service reads them.
const ITEM_FROM = `FROM items i`;
const itemWhere = (job) => `WHERE i.organization_id = ${ORG} AND NOT i.order_deleted${job ? ' AND i.order_job_id = $4::uuid' : ''}`;
const itemTotal = (job) =>
  job
    ? `(SELECT count(*) ${ITEM_FROM} ${itemWhere(job)})`
    : `(SELECT coalesce(sum(n), 0) FROM live_row_counts WHERE organization_id = ${ORG} AND relation = 'items')`;
const lookup = (table, alias, column) => `LEFT JOIN ${table} ${alias} ON ${alias}.organization_id = i.organization_id AND ${alias}.id = i.${column}`;

const ITEM_FIELDS = (
  job,
  vendor,
) => `i.id AS "id", i.external_id AS "externalId", i.line_number AS "lineNumber", i.order_id AS "orderId", i.description AS "description",
  i.quantity AS "quantity", i.extended_quantity AS "extendedQuantity", i.units_of_measure AS "unitsOfMeasure", i.units_of_measure_id AS "unitsOfMeasureId",
  i.requested_uom AS "requestedUOM", i.pricing_uom AS "pricingUOM", i.extended_uom AS "extendedUOM", i.unit_price AS "unitPrice",
  i.scaled_unit_price AS "scaledUnitPrice", i.unit_discount::float8 AS "unitDiscount", i.ext_price AS "extPrice",
  i.ext_price_including_tax AS "extPriceIncludingTax", api_ts(i.backorder_lead_time) AS "backorderLeadTime",
  i.backorder_quantity AS "backorderQuantity", api_ts(i.need_by_date) AS "needByDate", api_ts(i.expected_delivery_time) AS "expectedDeliveryTime",
  i.manufacturer AS "manufacturer", i.manufacturer_part_number AS "manufacturerPartNumber", i.universal_product_code AS "universalProductCode",
  i.vendor_part_number AS "vendorPartNumber", i.notes AS "notes", i.custom_column_value AS "customColumnValue",
  ${brief('iic', ", 'description', iic.description")} AS "itemCode", i.item_code_id AS "itemCodeId", i.item_code_text AS "itemCodeText",
  ${job} AS "jobId", ${vendor} AS "vendorId", iph.code AS "phaseCodeCode", icc.code AS "costCategoryCode", igl.code AS "glCodeCode",
  itx.code AS "taxCodeCode", ict.code AS "costTypeCode", i.costs_inventory_item_ledger_entry_id AS "costsInventoryItemLedgerEntryId",
  api_ts(i.created_at) AS "createdAt", api_ts(i.updated_at) AS "updatedAt"`;
const ITEM_LOOKUPS = `${lookup('item_codes', 'iic', 'item_code_id')} ${lookup('cost_categories', 'icc', 'cost_category_id')}
  ${lookup('cost_types', 'ict', 'cost_type_id')} ${lookup('gl_codes', 'igl', 'gl_code_id')} ${lookup('tax_codes', 'itx', 'tax_code_id')}
  ${lookup('phases', 'iph', 'phase_id')}`;
const itemPage = (job, data) => `SELECT ${OK}, json_build_object(
  'meta', json_build_object('total', ${itemTotal(job)}, 'limit', $2::int, 'offset', $3::int),
  'data', (SELECT coalesce(json_agg(p), '[]'::json) FROM (${data}) p)
)::text AS json`;

/** A first page: one plain statement. */
const firstPage = (job) =>
  itemPage(
    job,
    `SELECT ${ITEM_FIELDS('i.order_job_id', 'i.order_vendor_id')} ${ITEM_FROM} ${ITEM_LOOKUPS} ${itemWhere(job)}
  ORDER BY i.created_at DESC, i.id DESC LIMIT $2 OFFSET $3`,
  );

/** With an offset, the page's keys are found first (late row lookup), so skipped rows are never formatted. */
const deepPage = (job) =>
  itemPage(
    job,
    `SELECT ${ITEM_FIELDS('k.job_id', 'k.vendor_id')}
  FROM (SELECT i.organization_id, i.id, i.created_at, i.order_job_id AS job_id, i.order_vendor_id AS vendor_id ${ITEM_FROM} ${itemWhere(job)}
        ORDER BY i.created_at DESC, i.id DESC LIMIT $2 OFFSET $3) k
  JOIN items i ON i.organization_id = k.organization_id AND i.id = k.id
  ${ITEM_LOOKUPS}
  ORDER BY k.created_at DESC, k.id DESC`,
  );

/**
 * GET /items ($2 limit, $3 offset, $4 jobId when filtered): one statement per shape of the
 * request, so each gets its own plan (no `$4 IS NULL OR ...`).
 */
export const ITEMS = { first: firstPage(false), firstOfJob: firstPage(true), deep: deepPage(false), deepOfJob: deepPage(true) };

/** GET /orders ($2 limit, $3 offset), oldest first */
export const ORDERS = `SELECT ${OK}, (SELECT coalesce(json_agg(p), '[]'::json) FROM (
  SELECT o.id AS "id", o.version AS "versionNumber", o.external_id AS "externalId", api_ts(o.created_at) AS "createdAt", api_ts(o.updated_at) AS "updatedAt", o.created_by_id AS "createdById",
    o.updated_by_id AS "updatedById", o.job_id AS "jobId", o.vendor_id AS "vendorId", o.delivery_location_id AS "deliveryLocationId",
    o.delivery_instructions AS "deliveryInstructions", o.discount AS "discount", o.field_contact_name AS "fieldContactName",
    o.field_contact_phone AS "fieldContactPhone", o.flagged AS "flagged", api_ts(o.flagged_at) AS "flaggedAt", o.flag_message AS "flagMessage",
    ${brief('ogl')} AS "glCode", api_ts(o.integration_last_sync) AS "integrationLastSync", o.integration_message AS "integrationMessage",
    o.integration_state AS "integrationState", o.mode AS "mode", api_ts(o.need_by_date_day) AS "needByDateDay",
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
  FROM orders o
  JOIN organizations org ON org.id = o.organization_id
  LEFT JOIN gl_codes ogl ON ogl.organization_id = o.organization_id AND ogl.id = o.gl_code_id
  LEFT JOIN tax_codes otx ON otx.organization_id = o.organization_id AND otx.id = o.tax_code_id
  WHERE o.organization_id = ${ORG} AND o.deleted_at IS NULL
  ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3) p)::text AS json`;

const jobJson = (j) => `json_build_object('id', ${j}.id, 'code', ${j}.code, 'name', ${j}.name, 'createdAt', api_ts(${j}.created_at),
  'updatedAt', api_ts(${j}.updated_at), 'defaultLocationId', ${j}.default_location_id, 'defaultTaxCodeId', ${j}.default_tax_code_id,
  'startDate', api_ts(${j}.start_date), 'state', ${j}.state,
  'groups', (SELECT coalesce(json_agg(json_build_object('id', g.id, 'code', g.code, 'name', g.name, 'createdAt', api_ts(g.created_at),
      'updatedAt', api_ts(g.updated_at), 'deletedAt', api_ts(g.deleted_at), 'createdById', g.created_by_id) ORDER BY g.name, g.id), '[]'::json)
    FROM job_groups jg JOIN groups g ON g.organization_id = jg.organization_id AND g.id = jg.group_id
    WHERE jg.organization_id = ${j}.organization_id AND jg.job_id = ${j}.id AND g.deleted_at IS NULL))`;

/** GET /jobs/:code ($2 code); json is null when the job is missing */
export const JOB = `SELECT ${OK}, (SELECT ${jobJson('j')}::text FROM jobs j WHERE j.organization_id = ${ORG} AND j.code = $2) AS json`;

/** GET /releases ($2 limit, $3 offset), newest first, cancelled ones left out */
const RELEASE_COST = `round(ri.quantity_released * coalesce(i.unit_price::numeric, 0) * (1 - coalesce(i.unit_discount, 0) / 100)
  / (CASE i.units_of_measure WHEN 'M' THEN 1000 WHEN 'C' THEN 100 ELSE 1 END), 2)`;
const RELEASE_ITEMS = `FROM release_items ri JOIN items i ON i.organization_id = ri.organization_id AND i.id = ri.item_id
  CROSS JOIN LATERAL (SELECT ${RELEASE_COST} AS total) cost WHERE ri.organization_id = r.organization_id AND ri.release_id = r.id`;
const RELEASE_FROM = `FROM releases r JOIN orders o ON o.organization_id = r.organization_id AND o.id = r.order_id AND o.deleted_at IS NULL`;
const RELEASE_WHERE = `WHERE r.organization_id = ${ORG} AND r.cancelled_at IS NULL`;
export const RELEASES = `SELECT ${OK}, json_build_object(
  'meta', json_build_object('total', (SELECT count(*) ${RELEASE_FROM} ${RELEASE_WHERE}), 'limit', $2::int, 'offset', $3::int),
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
    ${RELEASE_WHERE}
    ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3) p)
)::text AS json`;

const BATCH_INPUT = `input AS (SELECT e.ord, r.* FROM json_array_elements($2::json) WITH ORDINALITY AS e(v, ord)
  CROSS JOIN LATERAL json_to_record(e.v) AS r(code text, name text, "defaultTaxCodeId" uuid, "startDate" timestamptz, state text))`;
const BATCH_UPSERT = `up AS (INSERT INTO jobs (organization_id, code, name, default_tax_code_id, start_date, state)
  SELECT ${ORG}, code, name, "defaultTaxCodeId", "startDate", coalesce(state, 'OPEN') FROM input WHERE ${ORG} IS NOT NULL
  ON CONFLICT (organization_id, code) DO UPDATE SET name = EXCLUDED.name, default_tax_code_id = EXCLUDED.default_tax_code_id,
    start_date = EXCLUDED.start_date, state = EXCLUDED.state, updated_at = now()
  RETURNING *)`;

/** POST /jobs/batch ($2 the inputs as JSON): one set-based upsert, jobs returned in input order */
export const JOBS_BATCH = `WITH ${BATCH_INPUT},
${BATCH_UPSERT}
SELECT ${OK}, (SELECT coalesce(json_agg(${jobJson('up')} ORDER BY input.ord), '[]'::json) FROM up JOIN input USING (code))::text AS json`;

/**
 * The floor's own change feed (created by FLOOR_FEED_SETUP when the floor starts): change_feed's
 * columns less what the service adds to an entry (no digests, no previous values, no changed
 * fields, no per-organization head), with its primary key and its data as json text (as
 * change_feed's, migration 20261124090000).
 */
export const FLOOR_FEED_SETUP = `CREATE TABLE IF NOT EXISTS floor_feed (
  organization_id uuid NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  type text NOT NULL,
  resource text NOT NULL,
  resource_id uuid NOT NULL,
  occurred_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  data json NOT NULL,
  PRIMARY KEY (organization_id, position))`;

/**
 * POST /jobs/batch?feed=1: JOBS_BATCH's upsert and, in the same statement (so the same
 * transaction), one floor_feed row per created or changed job carrying the job's JSON as the
 * reply (and GET /jobs/:code) shows it. The jobs as they were before the statement (its snapshot)
 * tell which elements changed: an element repeating what is stored writes no feed row.
 */
export const JOBS_BATCH_FEED = `WITH ${BATCH_INPUT},
prior AS (SELECT j.code, j.name, j.default_tax_code_id, j.start_date, j.state FROM jobs j
  WHERE j.organization_id = ${ORG} AND j.code IN (SELECT code FROM input)),
${BATCH_UPSERT},
written AS (SELECT up.organization_id, up.id, up.code, ${jobJson('up')} AS json, prior.code IS NULL AS created,
    (prior.name, prior.default_tax_code_id, prior.start_date, prior.state) IS DISTINCT FROM (up.name, up.default_tax_code_id, up.start_date, up.state) AS changed
  FROM up LEFT JOIN prior USING (code)),
feed AS (INSERT INTO floor_feed (organization_id, type, resource, resource_id, data)
  SELECT w.organization_id, CASE WHEN w.created THEN 'job.created' ELSE 'job.updated' END, 'job', w.id, w.json
  FROM written w JOIN input USING (code) WHERE w.created OR w.changed ORDER BY input.ord)
SELECT ${OK}, (SELECT coalesce(json_agg(w.json ORDER BY input.ord), '[]'::json) FROM written w JOIN input USING (code))::text AS json`;
