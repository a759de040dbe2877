// GENERATED from api/ by `npm run generate`. Do not edit by hand.
export interface paths {
    "/oauth2/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get an access token
         * @description OAuth 2.0 client credentials grant (RFC 6749 section 4.4). Send `grant_type=client_credentials`
         *     with `client_id` and `client_secret` in the form body, or authenticate the client with HTTP Basic
         *     (RFC 6749 section 2.3.1). The token is valid for 3600 seconds. Errors follow RFC 6749 section 5.2.
         */
        post: operations["issueToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tax-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tax codes
         * @description Lists the organization's tax codes (deleted ones excluded), ordered by `code` unless `orderBy` says otherwise.
         */
        get: operations["listTaxCodes"];
        put?: never;
        /**
         * Create a tax code
         * @description Creates a tax code. `taxType` defaults to `SALES`. The code must be unique among the organization's tax codes that are not deleted.
         */
        post: operations["createTaxCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tax-codes/{idOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a tax code
         * @description Reads one tax code by ID or code.
         */
        get: operations["getTaxCode"];
        put?: never;
        post?: never;
        /**
         * Delete a tax code
         * @description Soft-deletes a tax code and returns it with `deletedAt` set. Its code can then be used again.
         */
        delete: operations["deleteTaxCode"];
        options?: never;
        head?: never;
        /**
         * Update a tax code
         * @description Changes the given fields of a tax code. Giving a new `code` renames it.
         */
        patch: operations["updateTaxCode"];
        trace?: never;
    };
    "/units-of-measure": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List units of measure
         * @description Lists the organization's units of measure, ordered by `code` unless `orderBy` says otherwise.
         */
        get: operations["listUnitsOfMeasure"];
        put?: never;
        /**
         * Create a unit of measure
         * @description Creates a unit of measure. `multiplier` defaults to `E`. The code must be unique in the organization.
         */
        post: operations["createUnitOfMeasure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/units-of-measure/{idOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a unit of measure
         * @description Reads one unit of measure by ID or code.
         */
        get: operations["getUnitOfMeasure"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a unit of measure
         * @description Changes the given fields of a unit of measure. Giving a new `code` renames it.
         */
        patch: operations["updateUnitOfMeasure"];
        trace?: never;
    };
    "/changeOrders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List change orders
         * @description Lists the change orders of the organization's orders (orders that are deleted excluded),
         *     ordered by `createdAt` unless `orderBy` says otherwise. At most 10 change orders are returned
         *     per request whatever `limit` says (a larger `limit`, up to 1000, is accepted and capped at
         *     10); page on with `offset`. Drafts are left out unless `filter[draft]=true` is given.
         */
        get: operations["listChangeOrders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/changeOrders/{changeOrderId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The change order's ID.
                 * @example 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b
                 */
                changeOrderId: components["parameters"]["ChangeOrderId"];
            };
            cookie?: never;
        };
        /**
         * Get a change order
         * @description Reads one change order (drafts included) by ID. A change order of a deleted order, of another organization, or a missing one is a 404.
         */
        get: operations["getChangeOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/changeOrders/{changeOrderId}/integrationState": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The change order's ID.
                 * @example 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b
                 */
                changeOrderId: components["parameters"]["ChangeOrderId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a change order's integration state
         * @description The integrating system reports the change order's sync state: any IntegrationState is
         *     accepted and stored; `integrationMessage` is stored when given (null clears it) and kept when
         *     omitted. Answers `true`. The report is not a change made in the service, so `updatedAt` stays
         *     as it is (an integrator polling by `updatedAt` is not sent its own report back).
         */
        post: operations["setChangeOrderIntegrationState"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}/releases": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 4f3e2d1c-0b9a-4887-a665-544332211009
                 */
                orderId: components["parameters"]["OrderIdPath"];
            };
            cookie?: never;
        };
        /**
         * List an order's releases
         * @description Returns every release of a hold-for-release order as a bare array, newest first (`createdAt`
         *     descending). Not paginated. Cancelled releases are excluded unless `includeCancelled=true`.
         *     `totalCost` values are computed at request time from the order's line items (see `Release`).
         *     A missing order, a deleted order and another organization's order are all answered with 404
         *     (never 403).
         */
        get: operations["listOrderReleases"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/releases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List releases
         * @description Bulk pull of releases across the organization's orders, newest first (`createdAt` descending),
         *     as `{meta: {total, limit, offset}, data}`.
         *
         *     - `orderId` limits the result to one order; a value that does not resolve to an order of the
         *       organization (including a deleted order and an empty `orderId=`) is answered with 404.
         *     - `needByDateFrom` / `needByDateTo` bound `needByDateDay` inclusively and independently (either
         *       may be given alone); as soon as either is given, releases without a `needByDateDay` are
         *       excluded. A date without a time (`2026-11-18`) means that whole UTC day.
         *     - Cancelled releases are excluded unless `includeCancelled=true`; releases of deleted orders
         *       are never returned.
         *     - `limit` defaults to 100; values above 500 are capped at 500 without error and `meta.limit`
         *       shows the effective page size. `limit=0` returns no data and the true `meta.total`. A
         *       negative `limit` or `offset` is a 400 (`limit must be a non-negative integer`,
         *       `offset must be a non-negative integer`). An offset past the end gives an empty `data` with
         *       the true `meta.total`.
         *     - The `filter[...]` and `orderBy` conventions are not supported here: they are rejected as
         *       unknown query parameters (400).
         */
        get: operations["listReleases"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{idOrCode}/billOfMaterials": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a job's bill of materials
         * @description Returns the job's bill of materials (a job has at most one). 404 when the job does not exist in the organization or has no bill of materials yet.
         */
        get: operations["getJobBillOfMaterials"];
        put?: never;
        /**
         * Create a job's bill of materials
         * @description Creates the job's bill of materials (201). A job has one bill of materials: when it already
         *     exists, the existing one is returned with 200 and nothing changes, so the call is safe to
         *     repeat. No request body.
         */
        post: operations["createJobBillOfMaterials"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/billOfMaterials/{billOfMaterialsId}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The bill of materials' ID.
                 * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
                 */
                billOfMaterialsId: components["parameters"]["BillOfMaterialsId"];
            };
            cookie?: never;
        };
        /**
         * List the items of a bill of materials
         * @description Lists the items of a bill of materials (deleted items excluded), ordered by `createdAt` unless `orderBy` says otherwise. 404 when the bill of materials does not exist in the organization.
         */
        get: operations["listBillOfMaterialsItems"];
        put?: never;
        /**
         * Add items to a bill of materials
         * @description Creates the given items (at most 1000 per request) in one transaction and returns them in the
         *     order given. `unitOfMeasure` defaults to `EA`. Field rules: `estimatedQuantity` is a number,
         *     >= 0 and a whole number; `unitPrice` is a number >= 0; `description` cannot be the literal
         *     string `'null'`. If any element is rejected nothing is created, and one 400 reports every
         *     rejected element on its own line prefixed `Position <n>: ` (zero-based), naming the field and
         *     the rule. An empty list is `Invalid input, list cannot be empty`; more than 1000 elements is
         *     `Invalid input, list cannot be greater than 1000`.
         */
        post: operations["createBillOfMaterialsItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/billOfMaterialsItem/{billOfMaterialsItemId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The bill-of-materials item's ID.
                 * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
                 */
                billOfMaterialsItemId: components["parameters"]["BillOfMaterialsItemId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a bill-of-materials item
         * @description Deletes the item and its work-breakdown-structure values, and returns it with `deletedAt` set (and no values). A missing, already deleted or foreign item is a 404.
         */
        delete: operations["deleteBillOfMaterialsItem"];
        options?: never;
        head?: never;
        /**
         * Update a bill-of-materials item
         * @description Changes the given fields of an item. `workBreakdownStructureValues` are additive: each given
         *     value replaces the item's value of the same structureType and new structureTypes are added;
         *     `null` removes them all. Field rules: `estimatedQuantity` is a number, >= 0 and a whole number;
         *     `unitPrice` is a number >= 0; `description` cannot be the literal string `'null'`; a violation
         *     is a 400 naming the field and the rule. A missing, deleted or foreign item is a 404.
         */
        patch: operations["updateBillOfMaterialsItem"];
        trace?: never;
    };
    "/billOfMaterialsItems": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update bill-of-materials items in a batch
         * @description Applies up to 1000 updates in one transaction: if any element is rejected, none is saved.
         *     Each element is `{billOfMaterialsItemId, input}` with the same rules as the single update
         *     (additive `workBreakdownStructureValues`, `null` removes them).
         *
         *     Request-level errors, raised before any element is examined (400, exact messages):
         *     `Invalid input, list cannot be empty`, `Invalid input, list cannot be greater than 1000`, and
         *     `Invalid input, duplicate billOfMaterialsItemId <id>` when an ID appears more than once.
         *
         *     Otherwise every rejected element is reported in one 400 whose `errors[0].message` has one line
         *     per rejected element, separated by newlines, each prefixed `Position <n>: ` with the zero-based
         *     index in `inputs` (an item not found in the organization or deleted, or a field rule violated:
         *     `estimatedQuantity` a number, >= 0 and whole; `unitPrice` a number >= 0; `description` not the
         *     literal string `'null'`).
         */
        patch: operations["updateBillOfMaterialsItems"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Client credentials grant (RFC 6749 section 4.4). The client may authenticate with HTTP Basic instead of the body fields. */
        TokenRequest: {
            /**
             * @description Must be `client_credentials`.
             * @example client_credentials
             */
            grant_type?: string;
            /**
             * @description The OAuth client id (omit when using HTTP Basic).
             * @example cl_4f9a2c7e1b3d
             */
            client_id?: string;
            /**
             * @description The OAuth client secret (omit when using HTTP Basic).
             * @example cs_Q2xpZW50U2VjcmV0RXhhbXBsZQ
             */
            client_secret?: string;
            /**
             * @description Ignored; tokens carry the client's full access.
             * @example
             */
            scope?: string;
        };
        /** @description An access token. */
        TokenResponse: {
            /**
             * @description The access token, sent as `Authorization: Bearer <access_token>`.
             * @example eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0ZjlhIn0.c2lnbmF0dXJl
             */
            access_token: string;
            /**
             * @description Always `bearer`.
             * @example bearer
             * @enum {string}
             */
            token_type: "bearer";
            /**
             * Format: int32
             * @description Lifetime of the token in seconds.
             * @example 3600
             */
            expires_in: number;
        };
        /** @description OAuth 2.0 error (RFC 6749 section 5.2). */
        OAuthError: {
            /**
             * @description Error code.
             *     - `invalid_request`: a required field is missing or the request is malformed
             *     - `invalid_client`: unknown client, wrong secret or deleted client
             *     - `unsupported_grant_type`: `grant_type` is not `client_credentials`
             * @example invalid_client
             * @enum {string}
             */
            error: "invalid_request" | "invalid_client" | "unsupported_grant_type";
            /**
             * @description Human-readable explanation.
             * @example Client authentication failed.
             */
            error_description?: string;
        };
        /**
         * @description Sort direction.
         *     - `ASC`: ascending
         *     - `DESC`: descending
         * @default ASC
         * @enum {string}
         */
        SortDirection: "ASC" | "DESC";
        /**
         * @description Kind of tax.
         *     - `SALES`: sales tax, charged by the vendor
         *     - `USE`: use tax, self-assessed by the buyer
         * @example SALES
         * @enum {string}
         */
        TaxType: "SALES" | "USE";
        /** @description A tax code applied to orders, items, jobs and locations. */
        TaxCode: {
            /**
             * @description Unique ID.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            id: string;
            /**
             * @description Human-readable code, unique in the organization.
             * @example TX-CA
             */
            code: string;
            /**
             * @description Description.
             * @example California state sales tax
             */
            description: string;
            /**
             * Format: double
             * @description Resolved tax rate as a fraction (0.075 means 7.5 %).
             * @example 0.0725
             */
            taxPercent: number;
            taxType: components["schemas"]["TaxType"];
            /**
             * Format: date-time
             * @description When the tax code was deleted; null when not deleted.
             * @example null
             */
            deletedAt: string | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-03-02T15:04:05.123Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-14T09:30:00.000Z
             */
            updatedAt: string;
        };
        /** @description One problem of an error response. */
        ProblemError: {
            /**
             * @description Human-readable message; for batches, one line per rejected element, each prefixed `Position <n>: `.
             * @example body.code: must be a string
             */
            message: string;
            /**
             * @description The input the problem is about (`body.code`, `query.limit`, `query.filter.code_in`).
             * @example body.code
             */
            field?: string;
            /**
             * @description The rule that failed (`required`, `type`, `maximum`, `enum`, `unique`, ...).
             * @example type
             */
            rule?: string;
        };
        /** @description Error body shared by every error response (RFC 9457 problem details). */
        Problem: {
            /**
             * @description URI reference naming the kind of problem.
             * @example /problems/validation-failed
             */
            type: string;
            /**
             * @description Short summary of the kind of problem.
             * @example Validation failed
             */
            title: string;
            /**
             * Format: int32
             * @description The HTTP status code.
             * @example 400
             */
            status: number;
            /**
             * @description Explanation of this occurrence.
             * @example The request has 1 invalid value.
             */
            detail: string;
            /**
             * @description The request's `X-Request-Id`; quote it when reporting a problem.
             * @example 3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11
             */
            requestId: string;
            /** @description Every individual problem found; at least one. */
            errors: components["schemas"]["ProblemError"][];
        };
        /** @description A tax code to create. */
        TaxCodeCreate: {
            /**
             * @description Code, unique in the organization.
             * @example TX-CA
             */
            code: string;
            /**
             * @description Description.
             * @example California state sales tax
             */
            description: string;
            /**
             * @description Tax rate as a fraction between 0 and 1 (0.075 means 7.5 %).
             * @example 0.0725
             */
            taxPercent: number;
            taxType?: components["schemas"]["TaxType"];
        };
        /** @description Changes to a tax code; only the given fields change. */
        TaxCodeUpdate: {
            /**
             * @description New code, unique in the organization.
             * @example TX-CA
             */
            code?: string;
            /**
             * @description Description.
             * @example California state and district sales tax
             */
            description?: string;
            /**
             * @description Tax rate as a fraction between 0 and 1.
             * @example 0.0825
             */
            taxPercent?: number;
            taxType?: components["schemas"]["TaxType"];
        };
        /**
         * @description How the unit scales the extended price.
         *     - `E`: each (price per unit)
         *     - `C`: price per hundred units
         *     - `M`: price per thousand units
         * @example E
         * @enum {string}
         */
        Multiplier: "E" | "C" | "M";
        /** @description A unit of measure used on items. */
        UnitOfMeasure: {
            /**
             * @description Unique ID.
             * @example 0c9a8b7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d
             */
            id: string;
            /**
             * @description Code, unique in the organization; the value used on items.
             * @example EA
             */
            code: string;
            /**
             * @description Description.
             * @example Each
             */
            description: string;
            multiplier: components["schemas"]["Multiplier"];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-03-02T15:04:05.123Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-03-02T15:04:05.123Z
             */
            updatedAt: string;
        };
        /** @description A unit of measure to create. */
        UnitOfMeasureCreate: {
            /**
             * @description Code, unique in the organization.
             * @example LF
             */
            code: string;
            /**
             * @description Description.
             * @example Linear foot
             */
            description: string;
            multiplier?: components["schemas"]["Multiplier"];
        };
        /** @description Changes to a unit of measure; only the given fields change. */
        UnitOfMeasureUpdate: {
            /**
             * @description New code, unique in the organization.
             * @example LF
             */
            code?: string;
            /**
             * @description Description.
             * @example Linear foot
             */
            description?: string;
            multiplier?: components["schemas"]["Multiplier"];
        };
        /**
         * @description The order values a change order modified versus the prior version: only the changed keys are
         *     present, each with its new value; a key set to null means the value was deleted.
         */
        OrderDiff: {
            /**
             * @description The order.
             * @example 4f3e2d1c-0b9a-4887-a665-544332211009
             */
            id?: string | null;
            /**
             * Format: date-time
             * @description Creation time of the order.
             * @example 2026-10-20T15:00:00.000Z
             */
            createdAt?: string | null;
            /**
             * @description Custom column value.
             * @example null
             */
            customColumnValue?: string | null;
            /**
             * @description Delivery instructions.
             * @example Gate 3, call ahead
             */
            deliveryInstructions?: string | null;
            /**
             * @description Delivery location.
             * @example 8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a
             */
            deliveryLocationId?: string | null;
            /**
             * Format: double
             * @description Dollar discount subtracted from the total.
             * @example 150
             */
            discount?: number | null;
            /**
             * @description Field contact name.
             * @example Marcus Reyes
             */
            fieldContactName?: string | null;
            /**
             * @description Field contact phone.
             * @example +1 916 555 0143
             */
            fieldContactPhone?: string | null;
            /**
             * @description Flagged with an issue.
             * @example false
             */
            flagged?: boolean | null;
            /**
             * Format: date-time
             * @description When flagged.
             * @example null
             */
            flaggedAt?: string | null;
            /**
             * @description Description of the issue.
             * @example null
             */
            flagMessage?: string | null;
            /**
             * @description Default GL code.
             * @example null
             */
            glCodeId?: string | null;
            /**
             * Format: date-time
             * @description Last time the order became LINKED.
             * @example null
             */
            integrationLastSync?: string | null;
            /**
             * @description Integration state (see IntegrationState).
             * @example OUT_OF_SYNC
             */
            integrationState?: string | null;
            /**
             * @description The job.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId?: string | null;
            /**
             * @description Order mode (see Order).
             * @example ISSUE_PO
             */
            mode?: string | null;
            /**
             * Format: date-time
             * @description Needed-by day.
             * @example 2026-11-20T00:00:00.000Z
             */
            needByDateDay?: string | null;
            /**
             * @description Delivery window.
             * @example AM
             */
            needByWindow?: string | null;
            /**
             * @description Notes.
             * @example null
             */
            notes?: string | null;
            /**
             * @description Purchase order number.
             * @example J-1042-017
             */
            purchaseOrderNumber?: string | null;
            /**
             * @description Deliveries state.
             * @example NO_DELIVERIES
             */
            receivedState?: string | null;
            /**
             * Format: double
             * @description Dollar shipping cost.
             * @example 85
             */
            shippingCost?: number | null;
            /**
             * @description Order state.
             * @example ACTIVE
             */
            state?: string | null;
            /**
             * @description Default tax code.
             * @example null
             */
            taxCodeId?: string | null;
            /**
             * @description Exempt from line-item tax.
             * @example false
             */
            taxExempt?: boolean | null;
            /**
             * Format: double
             * @description Order total: the sum of the line totals (extPrice, or quantity × unitPrice × (1 − unitDiscount/100) / pricePerFactor when extPrice is not set) minus discount plus shipping cost, rounded to cents.
             * @example 4532.5
             */
            total?: number | null;
            /**
             * Format: date-time
             * @description Last modification time of the order.
             * @example 2026-11-12T09:45:00.000Z
             */
            updatedAt?: string | null;
            /**
             * @description Order type.
             * @example HOLD_FOR_RELEASE
             */
            type?: string | null;
            /**
             * @description The vendor.
             * @example 7c6d5e4f-3a2b-4c1d-9e0f-8a7b6c5d4e3f
             */
            vendorId?: string | null;
        };
        /**
         * @description A modified order line item in a change order: `id`, `lineNumber`, `createdAt` and `updatedAt`
         *     always, plus only the values that changed versus the prior version (their new value; null means
         *     the value was deleted).
         */
        ItemDiffChange: {
            /**
             * @description The order line item.
             * @example 0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f
             */
            id: string;
            /**
             * Format: date-time
             * @description Backorder lead time.
             * @example null
             */
            backorderLeadTime?: string | null;
            /**
             * Format: double
             * @description Quantity on backorder.
             * @example null
             */
            backorderQuantity?: number | null;
            /**
             * @description Code of the cost category.
             * @example 26-ELEC
             */
            costCategory?: string | null;
            /**
             * Format: date-time
             * @description Creation time of the line item.
             * @example 2026-10-20T15:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Custom column value.
             * @example null
             */
            customColumnValue?: string | null;
            /**
             * @description Description.
             * @example 3/4 in. EMT conduit, 10 ft
             */
            description?: string | null;
            /**
             * Format: double
             * @description Extended price.
             * @example 1164
             */
            extPrice?: number | null;
            /**
             * @description Code of the GL code.
             * @example 5100
             */
            glCode?: string | null;
            /**
             * @description The GL code.
             * @example a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d
             */
            glCodeId?: string | null;
            /**
             * @description The item code.
             * @example null
             */
            itemCodeId?: string | null;
            /**
             * Format: int32
             * @description Index of the line within the order.
             * @example 1
             */
            lineNumber: number;
            /**
             * @description Manufacturer.
             * @example Allied Tube & Conduit
             */
            manufacturer?: string | null;
            /**
             * @description Manufacturer part number.
             * @example 101543
             */
            manufacturerPartNumber?: string | null;
            /**
             * Format: date-time
             * @description Needed-by time.
             * @example 2026-11-18T00:00:00.000Z
             */
            needByDate?: string | null;
            /**
             * @description Notes.
             * @example null
             */
            notes?: string | null;
            /**
             * @description Code of the phase.
             * @example 02-ROUGH
             */
            phase?: string | null;
            /**
             * @description The phase.
             * @example b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e
             */
            phaseId?: string | null;
            /**
             * Format: double
             * @description Quantity.
             * @example 2400
             */
            quantity?: number | null;
            /**
             * @description Code of the tax code.
             * @example TX-CA
             */
            taxCode?: string | null;
            /**
             * @description The tax code (the key is spelled so).
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            taxCodId?: string | null;
            /**
             * Format: double
             * @description Rate of the tax code as a fraction (0.0725 is 7.25 %).
             * @example 0.0725
             */
            taxRate?: number | null;
            /**
             * Format: double
             * @description Discount in percent.
             * @example 0
             */
            unitDiscount?: number | null;
            /**
             * Format: double
             * @description Unit price.
             * @example 48.5
             */
            unitPrice?: number | null;
            /**
             * @description Unit.
             * @example C
             */
            unitsOfMeasure?: string | null;
            /**
             * @description The unit record.
             * @example null
             */
            unitsOfMeasureId?: string | null;
            /**
             * @description Universal product code.
             * @example null
             */
            universalProductCode?: string | null;
            /**
             * Format: date-time
             * @description Last modification time of the line item.
             * @example 2026-11-12T09:45:00.000Z
             */
            updatedAt: string;
            /**
             * @description Vendor part number.
             * @example EMT34
             */
            vendorPartNumber?: string | null;
        };
        /** @description An order line item as it was added or deleted by a change order; every key is present. */
        ItemDiff: WithRequired<components["schemas"]["ItemDiffChange"], "id" | "backorderLeadTime" | "backorderQuantity" | "costCategory" | "createdAt" | "customColumnValue" | "description" | "extPrice" | "glCode" | "glCodeId" | "itemCodeId" | "lineNumber" | "manufacturer" | "manufacturerPartNumber" | "needByDate" | "notes" | "phase" | "phaseId" | "quantity" | "taxCode" | "taxCodId" | "taxRate" | "unitDiscount" | "unitPrice" | "unitsOfMeasure" | "unitsOfMeasureId" | "universalProductCode" | "updatedAt" | "vendorPartNumber">;
        /**
         * @description Sync status with the integrating system.
         *     - `NOT_LINKED`: not yet written to the integrating system (every new object starts here)
         *     - `LINKING`: the integrating system is writing it
         *     - `LINKED`: in sync
         *     - `OUT_OF_SYNC`: changed in the service after it was linked
         *     - `ERROR`: the last sync failed; `integrationMessage` explains why
         * @example LINKED
         * @enum {string}
         */
        IntegrationState: "NOT_LINKED" | "LINKING" | "LINKED" | "OUT_OF_SYNC" | "ERROR";
        /**
         * @description A version of a purchase order. Versions are numbered sequentially; the initial order is version
         *     0, so the first change order is version 1. A change order is a draft until it is completed in
         *     the application.
         */
        ChangeOrder: {
            /**
             * @description Unique ID.
             * @example 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-12T09:45:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time (integration-state reports do not change it).
             * @example 2026-11-12T09:45:00.000Z
             */
            updatedAt: string;
            /**
             * @description The user who made the change order.
             * @example 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d
             */
            createdById: string | null;
            /**
             * @description The order.
             * @example 4f3e2d1c-0b9a-4887-a665-544332211009
             */
            orderId: string;
            /**
             * @description Label.
             * @example CO-2 Level 3 conduit added
             */
            label: string | null;
            /**
             * @description Note.
             * @example Owner-requested scope change, RFI 118.
             */
            note: string | null;
            /**
             * Format: int32
             * @description The order version this change order creates (1 for the first change order; the initial order is version 0).
             * @example 2
             */
            versionNumber: number;
            /**
             * @description True while the change order has not been completed in the application; drafts are left out of lists unless `filter[draft]=true`.
             * @example false
             */
            draft: boolean;
            modifiedOrderValues: components["schemas"]["OrderDiff"];
            /** @description Line items added, with every ItemDiff key. */
            addedItems: components["schemas"]["ItemDiff"][];
            /** @description Line items deleted, with every ItemDiff key (their values before deletion). */
            deletedItems: components["schemas"]["ItemDiff"][];
            /** @description Line items modified; each holds `id`, `lineNumber`, `createdAt`, `updatedAt` and only the changed values (null means deleted). */
            modifiedItems: components["schemas"]["ItemDiffChange"][];
            integrationState: components["schemas"]["IntegrationState"];
            /**
             * @description The integrating system's last message about this change order.
             * @example null
             */
            integrationMessage: string | null;
        };
        /** @description What the integrating system reports about a change order. */
        ChangeOrderIntegrationStateUpdate: {
            integrationState: components["schemas"]["IntegrationState"];
            /**
             * @description A message about the sync; stored when given (null clears it), kept when omitted.
             * @example Change order exported to Vista as PO 1042-017 rev 2.
             */
            integrationMessage?: string | null;
        };
        /** @description The order line item a release item draws from, with the prices the release is costed at. */
        ReleaseLineItem: {
            /**
             * @description The order line item's ID.
             * @example 0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f
             */
            id: string;
            /**
             * @description The line item's description.
             * @example 3/4 in. EMT conduit, 10 ft
             */
            description: string | null;
            /**
             * Format: double
             * @description The line item's unit price before its unit discount; 0 when the line is unpriced.
             * @example 48.5
             */
            unitPrice: number;
            /**
             * Format: double
             * @description Equals the release item's `totalCost`.
             * @example 1164
             */
            extPrice: number;
        };
        /** @description A quantity released from one order line item. */
        ReleaseItem: {
            /**
             * @description Unique ID.
             * @example 6e5f4a3b-2c1d-4e0f-9a8b-7c6d5e4f3a2b
             */
            id: string;
            /**
             * @description The release.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            releaseId: string;
            /**
             * @description The order line item released from.
             * @example 0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f
             */
            lineItemId: string;
            /**
             * @description The requisition item that asked for the material, if any.
             * @example null
             */
            requisitionItemId: string | null;
            /**
             * Format: double
             * @description Quantity released, in the line item's unit.
             * @example 2400
             */
            quantityReleased: number;
            /**
             * Format: double
             * @description Quantity on backorder; 0 when none.
             * @example 0
             */
            backorderQuantity: number;
            /**
             * Format: double
             * @description Computed at request time from the order line item:
             *     `round(quantityReleased × unitPrice × (1 − unitDiscount / 100) / pricePerFactor, 2)`, where
             *     pricePerFactor is 1000 for unit `M`, 100 for unit `C` and 1 for every other unit (including
             *     `EA` and blank). An unpriced line costs 0.
             * @example 1164
             */
            totalCost: number;
            lineItem: components["schemas"]["ReleaseLineItem"];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-02T16:20:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-02T16:20:00.000Z
             */
            updatedAt: string;
        };
        /** @description A scheduled material draw against a hold-for-release order. Values match the analytics dashboard. */
        Release: {
            /**
             * @description Unique ID.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            id: string;
            /**
             * @description The hold-for-release order.
             * @example 4f3e2d1c-0b9a-4887-a665-544332211009
             */
            orderId: string;
            /**
             * @description The order's purchase order number.
             * @example J-1042-017
             */
            purchaseOrderNumber: string | null;
            /**
             * @description Human-readable number; not guaranteed unique.
             * @example J-1042-017-R3
             */
            releaseNumber: string;
            /**
             * Format: date-time
             * @description The day the material is needed.
             * @example 2026-11-18T00:00:00.000Z
             */
            needByDateDay: string | null;
            /**
             * @description The delivery window within the day (for example `AM`, `PMLate`).
             * @example AMEarly
             */
            needByWindow: string | null;
            /**
             * @description Notes.
             * @example Deliver to level 2 east stair.
             */
            notes: string | null;
            /**
             * @description Additional notes.
             * @example Call Marcus 30 minutes before arrival.
             */
            additionalNotes: string | null;
            /**
             * Format: date-time
             * @description When the release was cancelled; null for an active release.
             * @example null
             */
            cancelledAt: string | null;
            /**
             * @description Why the release was cancelled.
             * @example null
             */
            cancelledReason: string | null;
            /**
             * Format: double
             * @description The sum of the `totalCost` of its release items, computed at request time.
             * @example 1535.25
             */
            totalCost: number;
            /** @description Where to deliver; only the location's `id` and `name` are returned. Null when not set. */
            deliveryLocation: {
                /**
                 * @description The location's ID.
                 * @example 8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a
                 */
                id: string;
                /**
                 * @description The location's name.
                 * @example Riverside MOB jobsite laydown yard
                 */
                name: string;
            } | null;
            /** @description The quantities released. */
            releaseItems: components["schemas"]["ReleaseItem"][];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-02T16:20:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-02T16:20:00.000Z
             */
            updatedAt: string;
            /**
             * @description The user who scheduled the release.
             * @example 1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d
             */
            createdById: string | null;
        };
        /** @description A page of releases with the size of the whole result. */
        ReleasePage: {
            /** @description Paging information. */
            meta: {
                /**
                 * Format: int32
                 * @description Number of releases matching the query, before pagination.
                 * @example 42
                 */
                total: number;
                /**
                 * Format: int32
                 * @description The effective page size (the requested `limit` after the cap of 500).
                 * @example 100
                 */
                limit: number;
                /**
                 * Format: int32
                 * @description The number of releases skipped.
                 * @example 0
                 */
                offset: number;
            };
            /** @description The releases of the page, newest first. */
            data: components["schemas"]["Release"][];
        };
        /** @description A job's bill of materials (one per job); its items are read and written under `/billOfMaterials/{billOfMaterialsId}/items`. */
        BillOfMaterials: {
            /**
             * @description Unique ID.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            id: string;
            /**
             * @description The job.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-10-05T14:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-05T14:00:00.000Z
             */
            updatedAt: string;
        };
        /** @description One work-breakdown-structure classification of a bill-of-materials item. */
        WorkBreakdownStructureValue: {
            /**
             * @description The kind of structure. Any string; the application enriches these names: `Cost Code`, `Floor`,
             *     `Phase`, `Phase Code`, `Section`, `System`. An item has at most one value per structureType.
             * @example Floor
             */
            structureType: string;
            /**
             * @description The item's value in that structure.
             * @example Level 2
             */
            value: string;
        };
        /** @description An estimated material line of a job's bill of materials. */
        BillOfMaterialsItem: {
            /**
             * @description Unique ID.
             * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
             */
            id: string;
            /**
             * @description The bill of materials the item belongs to.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            billOfMaterialsId: string;
            /**
             * @description The catalog item, if the line was picked from the catalog.
             * @example null
             */
            catalogId: string | null;
            /**
             * @description Description.
             * @example 3/4 in. EMT conduit, 10 ft sticks
             */
            description: string;
            /**
             * @description Estimated quantity (a whole number, >= 0).
             * @example 2400
             */
            estimatedQuantity: number;
            /**
             * @description Manufacturer part number.
             * @example 101543
             */
            mpn: string | null;
            /**
             * @description Unit (EA unless another was given on creation).
             * @example LF
             */
            unitOfMeasure: string | null;
            /**
             * @description Estimated unit price (>= 0); null when not estimated.
             * @example 0.62
             */
            unitPrice: number | null;
            /**
             * @description Universal product code.
             * @example 786776101547
             */
            upc: string | null;
            /** @description The item's work-breakdown-structure values, at most one per structureType. */
            workBreakdownStructureValues: components["schemas"]["WorkBreakdownStructureValue"][];
            /**
             * Format: date-time
             * @description When the item was deleted (only on the response of the delete operation).
             * @example null
             */
            deletedAt: string | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-10-05T14:10:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-05T14:10:00.000Z
             */
            updatedAt: string;
        };
        /**
         * @description A bill-of-materials item to create (BillOfMaterialsItemInput). The field rules
         *     (`estimatedQuantity` a number, >= 0 and whole; `unitPrice` a number >= 0; `description` not the
         *     literal string `'null'`) are checked for every element and reported per position, so
         *     `estimatedQuantity` and `unitPrice` accept any JSON value here and are checked by the service.
         */
        BillOfMaterialsItemCreate: {
            /**
             * @description Description; cannot be the literal string `'null'`.
             * @example 3/4 in. EMT conduit, 10 ft sticks
             */
            description: string;
            /**
             * @description Estimated quantity; a number, >= 0 and a whole number.
             * @example 2400
             */
            estimatedQuantity: unknown;
            /**
             * @description Unit; EA when omitted or null.
             * @example LF
             */
            unitOfMeasure?: string | null;
            /**
             * @description Estimated unit price; a number >= 0, or null.
             * @example 0.62
             */
            unitPrice?: unknown;
            /**
             * @description The catalog item, if the line comes from the catalog.
             * @example null
             */
            catalogId?: string | null;
            /**
             * @description Manufacturer part number.
             * @example 101543
             */
            mpn?: string | null;
            /**
             * @description Universal product code.
             * @example 786776101547
             */
            upc?: string | null;
            /** @description Work-breakdown-structure values, at most one per structureType (a later one for the same structureType wins). Null or omitted means none. */
            workBreakdownStructureValues?: components["schemas"]["WorkBreakdownStructureValue"][] | null;
        };
        /**
         * @description Changes to a bill-of-materials item (BillOfMaterialsItemInput); only the given fields change.
         *     The field rules (`estimatedQuantity` a number, >= 0 and whole; `unitPrice` a number >= 0;
         *     `description` not the literal string `'null'`) are checked by the service, which names the field
         *     and the rule (per position in a batch), so `estimatedQuantity` and `unitPrice` accept any JSON
         *     value here.
         */
        BillOfMaterialsItemUpdate: {
            /**
             * @description Description; cannot be the literal string `'null'`.
             * @example 3/4 in. EMT conduit, 10 ft sticks
             */
            description?: string;
            /**
             * @description Estimated quantity; a number, >= 0 and a whole number.
             * @example 2600
             */
            estimatedQuantity?: unknown;
            /**
             * @description Unit.
             * @example LF
             */
            unitOfMeasure?: string | null;
            /**
             * @description Estimated unit price; a number >= 0, or null to clear it.
             * @example 0.58
             */
            unitPrice?: unknown;
            /**
             * @description The catalog item, if the line comes from the catalog.
             * @example null
             */
            catalogId?: string | null;
            /**
             * @description Manufacturer part number.
             * @example 101543
             */
            mpn?: string | null;
            /**
             * @description Universal product code.
             * @example 786776101547
             */
            upc?: string | null;
            /**
             * @description Additive: merged into the item's values by structureType (a value for a structureType the
             *     item has replaces it; new structureTypes are added; others are kept). Null removes them all.
             */
            workBreakdownStructureValues?: components["schemas"]["WorkBreakdownStructureValue"][] | null;
        };
        /** @description One element of a batch update of bill-of-materials items. */
        BillOfMaterialsItemBatchUpdate: {
            /**
             * @description The item to change; an ID may appear only once per batch.
             * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
             */
            billOfMaterialsItemId: string;
            input: components["schemas"]["BillOfMaterialsItemUpdate"];
        };
    };
    responses: {
        /** @description Invalid input (a field, query parameter or body failed validation); every problem is named in errors. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "/problems/validation-failed",
                 *       "title": "Validation failed",
                 *       "status": 400,
                 *       "detail": "The request has 1 invalid value.",
                 *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                 *       "errors": [
                 *         {
                 *           "message": "body.code: must be a string",
                 *           "field": "body.code",
                 *           "rule": "type"
                 *         }
                 *       ]
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Missing, malformed, expired or revoked credentials. */
        Unauthorized: {
            headers: {
                /**
                 * @description `Bearer`, with `error="invalid_token"` when a credential was sent.
                 * @example Bearer error="invalid_token"
                 */
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "/problems/unauthorized",
                 *       "title": "Unauthorized",
                 *       "status": 401,
                 *       "detail": "The access token is invalid or expired.",
                 *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                 *       "errors": [
                 *         {
                 *           "message": "The access token is invalid or expired."
                 *         }
                 *       ]
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A value that must be unique in the organization is already used. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "/problems/conflict",
                 *       "title": "Conflict",
                 *       "status": 409,
                 *       "detail": "code TX-CA is already used.",
                 *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                 *       "errors": [
                 *         {
                 *           "message": "body.code: TX-CA is already used",
                 *           "field": "body.code",
                 *           "rule": "unique"
                 *         }
                 *       ]
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The object does not exist in the caller's organization; objects of other organizations are answered the same way. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "/problems/not-found",
                 *       "title": "Not found",
                 *       "status": 404,
                 *       "detail": "No tax code matches TX-XX.",
                 *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                 *       "errors": [
                 *         {
                 *           "message": "No tax code matches TX-XX."
                 *         }
                 *       ]
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: {
        /**
         * @description Page size (at most 1000).
         * @example 100
         */
        Limit: number;
        /**
         * @description Number of objects to skip before the page starts.
         * @example 0
         */
        Offset: number;
        /**
         * @description Field to order tax codes by (default `code`).
         * @example code
         */
        TaxCodeOrderBy: "code" | "createdAt" | "description" | "id" | "updatedAt";
        /**
         * @description Sort direction of `orderBy`.
         * @example ASC
         */
        Direction: components["schemas"]["SortDirection"];
        /** @description Conditions on tax codes; see "Filters and pagination". */
        TaxCodeFilter: {
            /**
             * @description Matches when `code` equals the value.
             * @example J-1042
             */
            code?: string;
            /**
             * @description Matches when `code` does not equal the value.
             * @example J-1042
             */
            code_not?: string;
            /** @description Matches when `code` is one of the listed values: repeat `filter[code_in][]=` or give one comma-separated value. */
            code_in?: string[];
            /** @description Matches when `code` is none of the listed values: repeat `filter[code_not_in][]=` or give one comma-separated value. */
            code_not_in?: string[];
            /**
             * @description Matches when `code` is less than the value.
             * @example J-1042
             */
            code_lt?: string;
            /**
             * @description Matches when `code` is less than or equal to the value.
             * @example J-1042
             */
            code_lte?: string;
            /**
             * @description Matches when `code` is greater than the value.
             * @example J-1042
             */
            code_gt?: string;
            /**
             * @description Matches when `code` is greater than or equal to the value.
             * @example J-1042
             */
            code_gte?: string;
            /**
             * @description Matches when `code` contains (case-insensitive) the value.
             * @example J-1042
             */
            code_contains?: string;
            /**
             * @description Matches when `code` starts with (case-insensitive) the value.
             * @example J-1042
             */
            code_starts_with?: string;
            /**
             * @description Matches when `code` ends with (case-insensitive) the value.
             * @example J-1042
             */
            code_ends_with?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_not?: string;
            /** @description Matches when `createdAt` is one of the listed values: repeat `filter[createdAt_in][]=` or give one comma-separated value. */
            createdAt_in?: string[];
            /** @description Matches when `createdAt` is none of the listed values: repeat `filter[createdAt_not_in][]=` or give one comma-separated value. */
            createdAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gte?: string;
            /**
             * @description Matches when `description` equals the value.
             * @example J-1042
             */
            description?: string;
            /**
             * @description Matches when `description` does not equal the value.
             * @example J-1042
             */
            description_not?: string;
            /** @description Matches when `description` is one of the listed values: repeat `filter[description_in][]=` or give one comma-separated value. */
            description_in?: string[];
            /** @description Matches when `description` is none of the listed values: repeat `filter[description_not_in][]=` or give one comma-separated value. */
            description_not_in?: string[];
            /**
             * @description Matches when `description` is less than the value.
             * @example J-1042
             */
            description_lt?: string;
            /**
             * @description Matches when `description` is less than or equal to the value.
             * @example J-1042
             */
            description_lte?: string;
            /**
             * @description Matches when `description` is greater than the value.
             * @example J-1042
             */
            description_gt?: string;
            /**
             * @description Matches when `description` is greater than or equal to the value.
             * @example J-1042
             */
            description_gte?: string;
            /**
             * @description Matches when `description` contains (case-insensitive) the value.
             * @example J-1042
             */
            description_contains?: string;
            /**
             * @description Matches when `description` starts with (case-insensitive) the value.
             * @example J-1042
             */
            description_starts_with?: string;
            /**
             * @description Matches when `description` ends with (case-insensitive) the value.
             * @example J-1042
             */
            description_ends_with?: string;
            /**
             * @description Matches when `id` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id?: string;
            /**
             * @description Matches when `id` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id_not?: string;
            /** @description Matches when `id` is one of the listed values: repeat `filter[id_in][]=` or give one comma-separated value. */
            id_in?: string[];
            /** @description Matches when `id` is none of the listed values: repeat `filter[id_not_in][]=` or give one comma-separated value. */
            id_not_in?: string[];
            /**
             * @description Matches when `taxType` equals the value.
             * @example SALES
             * @enum {string}
             */
            taxType?: "SALES" | "USE";
            /**
             * @description Matches when `taxType` does not equal the value.
             * @example SALES
             * @enum {string}
             */
            taxType_not?: "SALES" | "USE";
            /** @description Matches when `taxType` is one of the listed values: repeat `filter[taxType_in][]=` or give one comma-separated value. */
            taxType_in?: ("SALES" | "USE")[];
            /** @description Matches when `taxType` is none of the listed values: repeat `filter[taxType_not_in][]=` or give one comma-separated value. */
            taxType_not_in?: ("SALES" | "USE")[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_not?: string;
            /** @description Matches when `updatedAt` is one of the listed values: repeat `filter[updatedAt_in][]=` or give one comma-separated value. */
            updatedAt_in?: string[];
            /** @description Matches when `updatedAt` is none of the listed values: repeat `filter[updatedAt_not_in][]=` or give one comma-separated value. */
            updatedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gte?: string;
        };
        /**
         * @description The object's ID or its code.
         * @example TX-CA
         */
        IdOrCode: string;
        /**
         * @description Field to order units of measure by (default `code`).
         * @example code
         */
        UnitOfMeasureOrderBy: "code" | "createdAt" | "description" | "id" | "updatedAt";
        /** @description Conditions on units of measure; see "Filters and pagination". */
        UnitOfMeasureFilter: {
            /**
             * @description Matches when `code` equals the value.
             * @example J-1042
             */
            code?: string;
            /**
             * @description Matches when `code` does not equal the value.
             * @example J-1042
             */
            code_not?: string;
            /** @description Matches when `code` is one of the listed values: repeat `filter[code_in][]=` or give one comma-separated value. */
            code_in?: string[];
            /** @description Matches when `code` is none of the listed values: repeat `filter[code_not_in][]=` or give one comma-separated value. */
            code_not_in?: string[];
            /**
             * @description Matches when `code` is less than the value.
             * @example J-1042
             */
            code_lt?: string;
            /**
             * @description Matches when `code` is less than or equal to the value.
             * @example J-1042
             */
            code_lte?: string;
            /**
             * @description Matches when `code` is greater than the value.
             * @example J-1042
             */
            code_gt?: string;
            /**
             * @description Matches when `code` is greater than or equal to the value.
             * @example J-1042
             */
            code_gte?: string;
            /**
             * @description Matches when `code` contains (case-insensitive) the value.
             * @example J-1042
             */
            code_contains?: string;
            /**
             * @description Matches when `code` starts with (case-insensitive) the value.
             * @example J-1042
             */
            code_starts_with?: string;
            /**
             * @description Matches when `code` ends with (case-insensitive) the value.
             * @example J-1042
             */
            code_ends_with?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_not?: string;
            /** @description Matches when `createdAt` is one of the listed values: repeat `filter[createdAt_in][]=` or give one comma-separated value. */
            createdAt_in?: string[];
            /** @description Matches when `createdAt` is none of the listed values: repeat `filter[createdAt_not_in][]=` or give one comma-separated value. */
            createdAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gte?: string;
            /**
             * @description Matches when `description` equals the value.
             * @example J-1042
             */
            description?: string;
            /**
             * @description Matches when `description` does not equal the value.
             * @example J-1042
             */
            description_not?: string;
            /** @description Matches when `description` is one of the listed values: repeat `filter[description_in][]=` or give one comma-separated value. */
            description_in?: string[];
            /** @description Matches when `description` is none of the listed values: repeat `filter[description_not_in][]=` or give one comma-separated value. */
            description_not_in?: string[];
            /**
             * @description Matches when `description` is less than the value.
             * @example J-1042
             */
            description_lt?: string;
            /**
             * @description Matches when `description` is less than or equal to the value.
             * @example J-1042
             */
            description_lte?: string;
            /**
             * @description Matches when `description` is greater than the value.
             * @example J-1042
             */
            description_gt?: string;
            /**
             * @description Matches when `description` is greater than or equal to the value.
             * @example J-1042
             */
            description_gte?: string;
            /**
             * @description Matches when `description` contains (case-insensitive) the value.
             * @example J-1042
             */
            description_contains?: string;
            /**
             * @description Matches when `description` starts with (case-insensitive) the value.
             * @example J-1042
             */
            description_starts_with?: string;
            /**
             * @description Matches when `description` ends with (case-insensitive) the value.
             * @example J-1042
             */
            description_ends_with?: string;
            /**
             * @description Matches when `id` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id?: string;
            /**
             * @description Matches when `id` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id_not?: string;
            /** @description Matches when `id` is one of the listed values: repeat `filter[id_in][]=` or give one comma-separated value. */
            id_in?: string[];
            /** @description Matches when `id` is none of the listed values: repeat `filter[id_not_in][]=` or give one comma-separated value. */
            id_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_not?: string;
            /** @description Matches when `updatedAt` is one of the listed values: repeat `filter[updatedAt_in][]=` or give one comma-separated value. */
            updatedAt_in?: string[];
            /** @description Matches when `updatedAt` is none of the listed values: repeat `filter[updatedAt_not_in][]=` or give one comma-separated value. */
            updatedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gte?: string;
        };
        /**
         * @description Requested page size (up to 1000 accepted), but at most 10 change orders are returned per request whatever `limit` says; page on with `offset`.
         * @example 10
         */
        ChangeOrderLimit: number;
        /**
         * @description Field to order change orders by (default `createdAt`).
         * @example createdAt
         */
        ChangeOrderOrderBy: "createdAt" | "updatedAt";
        /** @description Conditions on change orders; see "Filters and pagination". Drafts are left out unless `filter[draft]=true` is given (which lists drafts only). */
        ChangeOrderFilter: {
            /**
             * Format: date-time
             * @description Matches when `createdAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_not?: string;
            /** @description Matches when `createdAt` is one of the listed values: repeat `filter[createdAt_in][]=` or give one comma-separated value. */
            createdAt_in?: string[];
            /** @description Matches when `createdAt` is none of the listed values: repeat `filter[createdAt_not_in][]=` or give one comma-separated value. */
            createdAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gte?: string;
            /**
             * @description Matches when `draft` equals the value.
             * @example true
             */
            draft?: boolean;
            /**
             * @description Matches when `id` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id?: string;
            /**
             * @description Matches when `id` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id_not?: string;
            /** @description Matches when `id` is one of the listed values: repeat `filter[id_in][]=` or give one comma-separated value. */
            id_in?: string[];
            /** @description Matches when `id` is none of the listed values: repeat `filter[id_not_in][]=` or give one comma-separated value. */
            id_not_in?: string[];
            /**
             * @description Matches when `orderId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            orderId?: string;
            /**
             * @description Matches when `orderId` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            orderId_not?: string;
            /** @description Matches when `orderId` is one of the listed values: repeat `filter[orderId_in][]=` or give one comma-separated value. */
            orderId_in?: string[];
            /** @description Matches when `orderId` is none of the listed values: repeat `filter[orderId_not_in][]=` or give one comma-separated value. */
            orderId_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_not?: string;
            /** @description Matches when `updatedAt` is one of the listed values: repeat `filter[updatedAt_in][]=` or give one comma-separated value. */
            updatedAt_in?: string[];
            /** @description Matches when `updatedAt` is none of the listed values: repeat `filter[updatedAt_not_in][]=` or give one comma-separated value. */
            updatedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gte?: string;
        };
        /**
         * @description The change order's ID.
         * @example 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b
         */
        ChangeOrderId: string;
        /**
         * @description The order's ID.
         * @example 4f3e2d1c-0b9a-4887-a665-544332211009
         */
        OrderIdPath: string;
        /**
         * @description Include cancelled releases (they carry `cancelledAt`).
         * @example false
         */
        IncludeCancelled: boolean;
        /**
         * @description The bill of materials' ID.
         * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
         */
        BillOfMaterialsId: string;
        /**
         * @description Field to order bill-of-materials items by (default `createdAt`).
         * @example createdAt
         */
        BillOfMaterialsItemOrderBy: "createdAt" | "description" | "estimatedQuantity" | "id" | "unitPrice" | "updatedAt";
        /** @description Conditions on bill-of-materials items; see "Filters and pagination". */
        BillOfMaterialsItemFilter: {
            /**
             * Format: date-time
             * @description Matches when `createdAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_not?: string;
            /** @description Matches when `createdAt` is one of the listed values: repeat `filter[createdAt_in][]=` or give one comma-separated value. */
            createdAt_in?: string[];
            /** @description Matches when `createdAt` is none of the listed values: repeat `filter[createdAt_not_in][]=` or give one comma-separated value. */
            createdAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `createdAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            createdAt_gte?: string;
            /**
             * @description Matches when `description` equals the value.
             * @example J-1042
             */
            description?: string;
            /**
             * @description Matches when `description` does not equal the value.
             * @example J-1042
             */
            description_not?: string;
            /** @description Matches when `description` is one of the listed values: repeat `filter[description_in][]=` or give one comma-separated value. */
            description_in?: string[];
            /** @description Matches when `description` is none of the listed values: repeat `filter[description_not_in][]=` or give one comma-separated value. */
            description_not_in?: string[];
            /**
             * @description Matches when `description` is less than the value.
             * @example J-1042
             */
            description_lt?: string;
            /**
             * @description Matches when `description` is less than or equal to the value.
             * @example J-1042
             */
            description_lte?: string;
            /**
             * @description Matches when `description` is greater than the value.
             * @example J-1042
             */
            description_gt?: string;
            /**
             * @description Matches when `description` is greater than or equal to the value.
             * @example J-1042
             */
            description_gte?: string;
            /**
             * @description Matches when `description` contains (case-insensitive) the value.
             * @example J-1042
             */
            description_contains?: string;
            /**
             * @description Matches when `description` starts with (case-insensitive) the value.
             * @example J-1042
             */
            description_starts_with?: string;
            /**
             * @description Matches when `description` ends with (case-insensitive) the value.
             * @example J-1042
             */
            description_ends_with?: string;
            /**
             * @description Matches when `estimatedQuantity` equals the value.
             * @example 10.5
             */
            estimatedQuantity?: number;
            /**
             * @description Matches when `estimatedQuantity` does not equal the value.
             * @example 10.5
             */
            estimatedQuantity_not?: number;
            /** @description Matches when `estimatedQuantity` is one of the listed values: repeat `filter[estimatedQuantity_in][]=` or give one comma-separated value. */
            estimatedQuantity_in?: number[];
            /** @description Matches when `estimatedQuantity` is none of the listed values: repeat `filter[estimatedQuantity_not_in][]=` or give one comma-separated value. */
            estimatedQuantity_not_in?: number[];
            /**
             * @description Matches when `estimatedQuantity` is less than the value.
             * @example 10.5
             */
            estimatedQuantity_lt?: number;
            /**
             * @description Matches when `estimatedQuantity` is less than or equal to the value.
             * @example 10.5
             */
            estimatedQuantity_lte?: number;
            /**
             * @description Matches when `estimatedQuantity` is greater than the value.
             * @example 10.5
             */
            estimatedQuantity_gt?: number;
            /**
             * @description Matches when `estimatedQuantity` is greater than or equal to the value.
             * @example 10.5
             */
            estimatedQuantity_gte?: number;
            /**
             * @description Matches when `id` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id?: string;
            /**
             * @description Matches when `id` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            id_not?: string;
            /** @description Matches when `id` is one of the listed values: repeat `filter[id_in][]=` or give one comma-separated value. */
            id_in?: string[];
            /** @description Matches when `id` is none of the listed values: repeat `filter[id_not_in][]=` or give one comma-separated value. */
            id_not_in?: string[];
            /**
             * @description Matches when `unitPrice` equals the value.
             * @example 10.5
             */
            unitPrice?: number;
            /**
             * @description Matches when `unitPrice` does not equal the value.
             * @example 10.5
             */
            unitPrice_not?: number;
            /** @description Matches when `unitPrice` is one of the listed values: repeat `filter[unitPrice_in][]=` or give one comma-separated value. */
            unitPrice_in?: number[];
            /** @description Matches when `unitPrice` is none of the listed values: repeat `filter[unitPrice_not_in][]=` or give one comma-separated value. */
            unitPrice_not_in?: number[];
            /**
             * @description Matches when `unitPrice` is less than the value.
             * @example 10.5
             */
            unitPrice_lt?: number;
            /**
             * @description Matches when `unitPrice` is less than or equal to the value.
             * @example 10.5
             */
            unitPrice_lte?: number;
            /**
             * @description Matches when `unitPrice` is greater than the value.
             * @example 10.5
             */
            unitPrice_gt?: number;
            /**
             * @description Matches when `unitPrice` is greater than or equal to the value.
             * @example 10.5
             */
            unitPrice_gte?: number;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_not?: string;
            /** @description Matches when `updatedAt` is one of the listed values: repeat `filter[updatedAt_in][]=` or give one comma-separated value. */
            updatedAt_in?: string[];
            /** @description Matches when `updatedAt` is none of the listed values: repeat `filter[updatedAt_not_in][]=` or give one comma-separated value. */
            updatedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `updatedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            updatedAt_gte?: string;
        };
        /**
         * @description The bill-of-materials item's ID.
         * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
         */
        BillOfMaterialsItemId: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    issueToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "grant_type": "client_credentials",
                 *       "client_id": "cl_4f9a2c7e1b3d",
                 *       "client_secret": "cs_Q2xpZW50U2VjcmV0RXhhbXBsZQ"
                 *     }
                 */
                "application/x-www-form-urlencoded": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description The access token, sent with `Cache-Control: no-store` and `Pragma: no-cache`. */
            200: {
                headers: {
                    /**
                     * @description Always `no-store`.
                     * @example no-store
                     */
                    "Cache-Control"?: string;
                    /**
                     * @description Always `no-cache`.
                     * @example no-cache
                     */
                    Pragma?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0ZjlhIn0.c2lnbmF0dXJl",
                     *       "token_type": "bearer",
                     *       "expires_in": 3600
                     *     }
                     */
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description `invalid_request` or `unsupported_grant_type`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unsupported_grant_type",
                     *       "error_description": "Only grant_type=client_credentials is supported."
                     *     }
                     */
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description `invalid_client`: unknown client, wrong secret or deleted client. With HTTP Basic, `WWW-Authenticate: Basic` is sent. */
            401: {
                headers: {
                    /**
                     * @description `Basic realm="oauth2"` when the client authenticated with HTTP Basic.
                     * @example Basic realm="oauth2"
                     */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_client",
                     *       "error_description": "Client authentication failed."
                     *     }
                     */
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    listTaxCodes: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 1000).
                 * @example 100
                 */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order tax codes by (default `code`).
                 * @example code
                 */
                orderBy?: components["parameters"]["TaxCodeOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on tax codes; see "Filters and pagination". */
                filter?: components["parameters"]["TaxCodeFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tax codes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "code": "TX-CA",
                     *         "description": "California state sales tax",
                     *         "taxPercent": 0.0725,
                     *         "taxType": "SALES",
                     *         "deletedAt": null,
                     *         "createdAt": "2026-03-02T15:04:05.123Z",
                     *         "updatedAt": "2026-10-14T09:30:00.000Z"
                     *       },
                     *       {
                     *         "id": "8e2f4a6b-3c5d-4e7f-9a1b-2c3d4e5f6a7b",
                     *         "code": "TX-USE-NV",
                     *         "description": "Nevada use tax",
                     *         "taxPercent": 0.0685,
                     *         "taxType": "USE",
                     *         "deletedAt": null,
                     *         "createdAt": "2026-03-02T15:05:11.480Z",
                     *         "updatedAt": "2026-03-02T15:05:11.480Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["TaxCode"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    createTaxCode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "TX-CA",
                 *       "description": "California state sales tax",
                 *       "taxPercent": 0.0725,
                 *       "taxType": "SALES"
                 *     }
                 */
                "application/json": components["schemas"]["TaxCodeCreate"];
            };
        };
        responses: {
            /** @description The created tax code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "code": "TX-CA",
                     *       "description": "California state sales tax",
                     *       "taxPercent": 0.0725,
                     *       "taxType": "SALES",
                     *       "deletedAt": null,
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TaxCode"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
        };
    };
    getTaxCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tax code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "code": "TX-CA",
                     *       "description": "California state sales tax",
                     *       "taxPercent": 0.0725,
                     *       "taxType": "SALES",
                     *       "deletedAt": null,
                     *       "createdAt": "2026-03-02T15:04:05.123Z",
                     *       "updatedAt": "2026-10-14T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TaxCode"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    deleteTaxCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted tax code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "code": "TX-CA",
                     *       "description": "California state sales tax",
                     *       "taxPercent": 0.0725,
                     *       "taxType": "SALES",
                     *       "deletedAt": "2026-11-21T10:00:00.000Z",
                     *       "createdAt": "2026-03-02T15:04:05.123Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TaxCode"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateTaxCode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "California state and district sales tax",
                 *       "taxPercent": 0.0825
                 *     }
                 */
                "application/json": components["schemas"]["TaxCodeUpdate"];
            };
        };
        responses: {
            /** @description The updated tax code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "code": "TX-CA",
                     *       "description": "California state and district sales tax",
                     *       "taxPercent": 0.0825,
                     *       "taxType": "SALES",
                     *       "deletedAt": null,
                     *       "createdAt": "2026-03-02T15:04:05.123Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TaxCode"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
        };
    };
    listUnitsOfMeasure: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 1000).
                 * @example 100
                 */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order units of measure by (default `code`).
                 * @example code
                 */
                orderBy?: components["parameters"]["UnitOfMeasureOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on units of measure; see "Filters and pagination". */
                filter?: components["parameters"]["UnitOfMeasureFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of units of measure. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0c9a8b7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
                     *         "code": "EA",
                     *         "description": "Each",
                     *         "multiplier": "E",
                     *         "createdAt": "2026-03-02T15:04:05.123Z",
                     *         "updatedAt": "2026-03-02T15:04:05.123Z"
                     *       },
                     *       {
                     *         "id": "1d0b9c8e-7f6a-4b5c-8d3e-2f1a0b9c8d7e",
                     *         "code": "M",
                     *         "description": "Per thousand",
                     *         "multiplier": "M",
                     *         "createdAt": "2026-03-02T15:04:06.001Z",
                     *         "updatedAt": "2026-03-02T15:04:06.001Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["UnitOfMeasure"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    createUnitOfMeasure: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "LF",
                 *       "description": "Linear foot",
                 *       "multiplier": "E"
                 *     }
                 */
                "application/json": components["schemas"]["UnitOfMeasureCreate"];
            };
        };
        responses: {
            /** @description The created unit of measure. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "2e1c0d9f-8a7b-4c6d-9e4f-3a2b1c0d9e8f",
                     *       "code": "LF",
                     *       "description": "Linear foot",
                     *       "multiplier": "E",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UnitOfMeasure"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
        };
    };
    getUnitOfMeasure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The unit of measure. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0c9a8b7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
                     *       "code": "EA",
                     *       "description": "Each",
                     *       "multiplier": "E",
                     *       "createdAt": "2026-03-02T15:04:05.123Z",
                     *       "updatedAt": "2026-03-02T15:04:05.123Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UnitOfMeasure"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateUnitOfMeasure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Per hundred",
                 *       "multiplier": "C"
                 *     }
                 */
                "application/json": components["schemas"]["UnitOfMeasureUpdate"];
            };
        };
        responses: {
            /** @description The updated unit of measure. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f2d1e0a-9b8c-4d7e-8f5a-4b3c2d1e0f9a",
                     *       "code": "C",
                     *       "description": "Per hundred",
                     *       "multiplier": "C",
                     *       "createdAt": "2026-03-02T15:04:05.123Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["UnitOfMeasure"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
        };
    };
    listChangeOrders: {
        parameters: {
            query?: {
                /**
                 * @description Requested page size (up to 1000 accepted), but at most 10 change orders are returned per request whatever `limit` says; page on with `offset`.
                 * @example 10
                 */
                limit?: components["parameters"]["ChangeOrderLimit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order change orders by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["ChangeOrderOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on change orders; see "Filters and pagination". Drafts are left out unless `filter[draft]=true` is given (which lists drafts only). */
                filter?: components["parameters"]["ChangeOrderFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of at most 10 change orders. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
                     *         "createdAt": "2026-11-12T09:45:00.000Z",
                     *         "updatedAt": "2026-11-12T09:45:00.000Z",
                     *         "createdById": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
                     *         "orderId": "4f3e2d1c-0b9a-4887-a665-544332211009",
                     *         "label": "CO-2 Level 3 conduit added",
                     *         "note": "Owner-requested scope change, RFI 118.",
                     *         "versionNumber": 2,
                     *         "draft": false,
                     *         "modifiedOrderValues": {
                     *           "needByDateDay": "2026-11-24T00:00:00.000Z",
                     *           "notes": null,
                     *           "total": 4966.6,
                     *           "updatedAt": "2026-11-12T09:45:00.000Z"
                     *         },
                     *         "addedItems": [
                     *           {
                     *             "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *             "backorderLeadTime": null,
                     *             "backorderQuantity": null,
                     *             "costCategory": "26-ELEC",
                     *             "createdAt": "2026-11-12T09:45:00.000Z",
                     *             "customColumnValue": null,
                     *             "description": "1 in. EMT set-screw couplings",
                     *             "extPrice": 434.1,
                     *             "glCode": "5100",
                     *             "glCodeId": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
                     *             "itemCodeId": null,
                     *             "lineNumber": 4,
                     *             "manufacturer": "Bridgeport",
                     *             "manufacturerPartNumber": "252-DC",
                     *             "needByDate": "2026-11-24T00:00:00.000Z",
                     *             "notes": null,
                     *             "phase": "02-ROUGH",
                     *             "phaseId": "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e",
                     *             "quantity": 300,
                     *             "taxCode": "TX-CA",
                     *             "taxCodId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *             "taxRate": 0.0725,
                     *             "unitDiscount": 0,
                     *             "unitPrice": 1.447,
                     *             "unitsOfMeasure": "EA",
                     *             "unitsOfMeasureId": null,
                     *             "universalProductCode": null,
                     *             "updatedAt": "2026-11-12T09:45:00.000Z",
                     *             "vendorPartNumber": "BP252DC"
                     *           }
                     *         ],
                     *         "deletedItems": [],
                     *         "modifiedItems": [
                     *           {
                     *             "id": "0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f",
                     *             "lineNumber": 1,
                     *             "createdAt": "2026-10-20T15:00:00.000Z",
                     *             "updatedAt": "2026-11-12T09:45:00.000Z",
                     *             "quantity": 2400,
                     *             "extPrice": 1164
                     *           }
                     *         ],
                     *         "integrationState": "LINKED",
                     *         "integrationMessage": "Exported to Vista as PO 1042-017 rev 2."
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["ChangeOrder"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getChangeOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The change order's ID.
                 * @example 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b
                 */
                changeOrderId: components["parameters"]["ChangeOrderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The change order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
                     *       "createdAt": "2026-11-12T09:45:00.000Z",
                     *       "updatedAt": "2026-11-12T09:45:00.000Z",
                     *       "createdById": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
                     *       "orderId": "4f3e2d1c-0b9a-4887-a665-544332211009",
                     *       "label": "CO-2 Level 3 conduit added",
                     *       "note": "Owner-requested scope change, RFI 118.",
                     *       "versionNumber": 2,
                     *       "draft": false,
                     *       "modifiedOrderValues": {
                     *         "needByDateDay": "2026-11-24T00:00:00.000Z",
                     *         "notes": null,
                     *         "total": 4966.6,
                     *         "updatedAt": "2026-11-12T09:45:00.000Z"
                     *       },
                     *       "addedItems": [
                     *         {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "backorderLeadTime": null,
                     *           "backorderQuantity": null,
                     *           "costCategory": "26-ELEC",
                     *           "createdAt": "2026-11-12T09:45:00.000Z",
                     *           "customColumnValue": null,
                     *           "description": "1 in. EMT set-screw couplings",
                     *           "extPrice": 434.1,
                     *           "glCode": "5100",
                     *           "glCodeId": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
                     *           "itemCodeId": null,
                     *           "lineNumber": 4,
                     *           "manufacturer": "Bridgeport",
                     *           "manufacturerPartNumber": "252-DC",
                     *           "needByDate": "2026-11-24T00:00:00.000Z",
                     *           "notes": null,
                     *           "phase": "02-ROUGH",
                     *           "phaseId": "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e",
                     *           "quantity": 300,
                     *           "taxCode": "TX-CA",
                     *           "taxCodId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *           "taxRate": 0.0725,
                     *           "unitDiscount": 0,
                     *           "unitPrice": 1.447,
                     *           "unitsOfMeasure": "EA",
                     *           "unitsOfMeasureId": null,
                     *           "universalProductCode": null,
                     *           "updatedAt": "2026-11-12T09:45:00.000Z",
                     *           "vendorPartNumber": "BP252DC"
                     *         }
                     *       ],
                     *       "deletedItems": [],
                     *       "modifiedItems": [
                     *         {
                     *           "id": "0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f",
                     *           "lineNumber": 1,
                     *           "createdAt": "2026-10-20T15:00:00.000Z",
                     *           "updatedAt": "2026-11-12T09:45:00.000Z",
                     *           "quantity": 2400,
                     *           "extPrice": 1164
                     *         }
                     *       ],
                     *       "integrationState": "LINKED",
                     *       "integrationMessage": "Exported to Vista as PO 1042-017 rev 2."
                     *     }
                     */
                    "application/json": components["schemas"]["ChangeOrder"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    setChangeOrderIntegrationState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The change order's ID.
                 * @example 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b
                 */
                changeOrderId: components["parameters"]["ChangeOrderId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "integrationState": "LINKED",
                 *       "integrationMessage": "Exported to Vista as PO 1042-017 rev 2."
                 *     }
                 */
                "application/json": components["schemas"]["ChangeOrderIntegrationStateUpdate"];
            };
        };
        responses: {
            /** @description The state was stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example true */
                    "application/json": boolean;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listOrderReleases: {
        parameters: {
            query?: {
                /**
                 * @description Include cancelled releases (they carry `cancelledAt`).
                 * @example false
                 */
                includeCancelled?: components["parameters"]["IncludeCancelled"];
            };
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 4f3e2d1c-0b9a-4887-a665-544332211009
                 */
                orderId: components["parameters"]["OrderIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order's releases, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "orderId": "4f3e2d1c-0b9a-4887-a665-544332211009",
                     *         "purchaseOrderNumber": "J-1042-017",
                     *         "releaseNumber": "J-1042-017-R3",
                     *         "needByDateDay": "2026-11-18T00:00:00.000Z",
                     *         "needByWindow": "AMEarly",
                     *         "notes": "Deliver to level 2 east stair.",
                     *         "additionalNotes": "Call Marcus 30 minutes before arrival.",
                     *         "cancelledAt": null,
                     *         "cancelledReason": null,
                     *         "totalCost": 1535.25,
                     *         "deliveryLocation": {
                     *           "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *           "name": "Riverside MOB jobsite laydown yard"
                     *         },
                     *         "releaseItems": [
                     *           {
                     *             "id": "6e5f4a3b-2c1d-4e0f-9a8b-7c6d5e4f3a2b",
                     *             "releaseId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *             "lineItemId": "0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f",
                     *             "requisitionItemId": null,
                     *             "quantityReleased": 2400,
                     *             "backorderQuantity": 0,
                     *             "totalCost": 1164,
                     *             "lineItem": {
                     *               "id": "0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f",
                     *               "description": "3/4 in. EMT conduit, 10 ft (price per hundred)",
                     *               "unitPrice": 48.5,
                     *               "extPrice": 1164
                     *             },
                     *             "createdAt": "2026-11-02T16:20:00.000Z",
                     *             "updatedAt": "2026-11-02T16:20:00.000Z"
                     *           },
                     *           {
                     *             "id": "7f6a5b4c-3d2e-4f1a-8b9c-0d1e2f3a4b5c",
                     *             "releaseId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *             "lineItemId": "1d0e9f8a-7b6c-4d5e-9f4a-3b2c1d0e9f8a",
                     *             "requisitionItemId": null,
                     *             "quantityReleased": 1000,
                     *             "backorderQuantity": 250,
                     *             "totalCost": 371.25,
                     *             "lineItem": {
                     *               "id": "1d0e9f8a-7b6c-4d5e-9f4a-3b2c1d0e9f8a",
                     *               "description": "12 AWG THHN copper wire (price per thousand feet, 10 % discount)",
                     *               "unitPrice": 412.5,
                     *               "extPrice": 371.25
                     *             },
                     *             "createdAt": "2026-11-02T16:20:00.000Z",
                     *             "updatedAt": "2026-11-02T16:20:00.000Z"
                     *           }
                     *         ],
                     *         "createdAt": "2026-11-02T16:20:00.000Z",
                     *         "updatedAt": "2026-11-02T16:20:00.000Z",
                     *         "createdById": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Release"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listReleases: {
        parameters: {
            query?: {
                /**
                 * @description Only releases of this order.
                 * @example 4f3e2d1c-0b9a-4887-a665-544332211009
                 */
                orderId?: string;
                /**
                 * @description Only releases needed on or after this time (or day).
                 * @example 2026-11-01T00:00:00.000Z
                 */
                needByDateFrom?: string;
                /**
                 * @description Only releases needed on or before this time (or day).
                 * @example 2026-11-30T00:00:00.000Z
                 */
                needByDateTo?: string;
                /**
                 * @description Include cancelled releases (they carry `cancelledAt`).
                 * @example false
                 */
                includeCancelled?: components["parameters"]["IncludeCancelled"];
                /**
                 * @description Page size; default 100, any value above 500 is capped at 500 (see `meta.limit`). Must not be negative.
                 * @example 100
                 */
                limit?: number;
                /**
                 * @description Number of releases to skip; default 0. Must not be negative.
                 * @example 0
                 */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of releases and the total. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "meta": {
                     *         "total": 1,
                     *         "limit": 100,
                     *         "offset": 0
                     *       },
                     *       "data": [
                     *         {
                     *           "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *           "orderId": "4f3e2d1c-0b9a-4887-a665-544332211009",
                     *           "purchaseOrderNumber": "J-1042-017",
                     *           "releaseNumber": "J-1042-017-R3",
                     *           "needByDateDay": "2026-11-18T00:00:00.000Z",
                     *           "needByWindow": "AMEarly",
                     *           "notes": "Deliver to level 2 east stair.",
                     *           "additionalNotes": "Call Marcus 30 minutes before arrival.",
                     *           "cancelledAt": null,
                     *           "cancelledReason": null,
                     *           "totalCost": 1535.25,
                     *           "deliveryLocation": {
                     *             "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *             "name": "Riverside MOB jobsite laydown yard"
                     *           },
                     *           "releaseItems": [
                     *             {
                     *               "id": "6e5f4a3b-2c1d-4e0f-9a8b-7c6d5e4f3a2b",
                     *               "releaseId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *               "lineItemId": "0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f",
                     *               "requisitionItemId": null,
                     *               "quantityReleased": 2400,
                     *               "backorderQuantity": 0,
                     *               "totalCost": 1164,
                     *               "lineItem": {
                     *                 "id": "0c9d8e7f-6a5b-4c4d-8e3f-2a1b0c9d8e7f",
                     *                 "description": "3/4 in. EMT conduit, 10 ft (price per hundred)",
                     *                 "unitPrice": 48.5,
                     *                 "extPrice": 1164
                     *               },
                     *               "createdAt": "2026-11-02T16:20:00.000Z",
                     *               "updatedAt": "2026-11-02T16:20:00.000Z"
                     *             },
                     *             {
                     *               "id": "7f6a5b4c-3d2e-4f1a-8b9c-0d1e2f3a4b5c",
                     *               "releaseId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *               "lineItemId": "1d0e9f8a-7b6c-4d5e-9f4a-3b2c1d0e9f8a",
                     *               "requisitionItemId": null,
                     *               "quantityReleased": 1000,
                     *               "backorderQuantity": 250,
                     *               "totalCost": 371.25,
                     *               "lineItem": {
                     *                 "id": "1d0e9f8a-7b6c-4d5e-9f4a-3b2c1d0e9f8a",
                     *                 "description": "12 AWG THHN copper wire (price per thousand feet, 10 % discount)",
                     *                 "unitPrice": 412.5,
                     *                 "extPrice": 371.25
                     *               },
                     *               "createdAt": "2026-11-02T16:20:00.000Z",
                     *               "updatedAt": "2026-11-02T16:20:00.000Z"
                     *             }
                     *           ],
                     *           "createdAt": "2026-11-02T16:20:00.000Z",
                     *           "updatedAt": "2026-11-02T16:20:00.000Z",
                     *           "createdById": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ReleasePage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    getJobBillOfMaterials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job's bill of materials. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "createdAt": "2026-10-05T14:00:00.000Z",
                     *       "updatedAt": "2026-10-05T14:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BillOfMaterials"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    createJobBillOfMaterials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The object's ID or its code.
                 * @example TX-CA
                 */
                idOrCode: components["parameters"]["IdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job already had a bill of materials; it is returned unchanged. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "createdAt": "2026-10-05T14:00:00.000Z",
                     *       "updatedAt": "2026-10-05T14:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BillOfMaterials"];
                };
            };
            /** @description The created bill of materials. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "createdAt": "2026-10-05T14:00:00.000Z",
                     *       "updatedAt": "2026-10-05T14:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BillOfMaterials"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listBillOfMaterialsItems: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 1000).
                 * @example 100
                 */
                limit?: components["parameters"]["Limit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order bill-of-materials items by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["BillOfMaterialsItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on bill-of-materials items; see "Filters and pagination". */
                filter?: components["parameters"]["BillOfMaterialsItemFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The bill of materials' ID.
                 * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
                 */
                billOfMaterialsId: components["parameters"]["BillOfMaterialsId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "catalogId": null,
                     *         "description": "3/4 in. EMT conduit, 10 ft sticks",
                     *         "estimatedQuantity": 2400,
                     *         "mpn": "101543",
                     *         "unitOfMeasure": "LF",
                     *         "unitPrice": 0.62,
                     *         "upc": "786776101547",
                     *         "workBreakdownStructureValues": [
                     *           {
                     *             "structureType": "Floor",
                     *             "value": "Level 2"
                     *           },
                     *           {
                     *             "structureType": "Cost Code",
                     *             "value": "26-0533"
                     *           }
                     *         ],
                     *         "deletedAt": null,
                     *         "createdAt": "2026-10-05T14:10:00.000Z",
                     *         "updatedAt": "2026-10-05T14:10:00.000Z"
                     *       },
                     *       {
                     *         "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *         "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "catalogId": null,
                     *         "description": "4 in. square box, 2-1/8 in. deep",
                     *         "estimatedQuantity": 180,
                     *         "mpn": "52171-K",
                     *         "unitOfMeasure": "EA",
                     *         "unitPrice": 3.15,
                     *         "upc": null,
                     *         "workBreakdownStructureValues": [
                     *           {
                     *             "structureType": "Floor",
                     *             "value": "Level 2"
                     *           }
                     *         ],
                     *         "deletedAt": null,
                     *         "createdAt": "2026-10-05T14:10:00.000Z",
                     *         "updatedAt": "2026-10-05T14:10:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["BillOfMaterialsItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    createBillOfMaterialsItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The bill of materials' ID.
                 * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
                 */
                billOfMaterialsId: components["parameters"]["BillOfMaterialsId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "billOfMaterialsItems": [
                 *         {
                 *           "description": "3/4 in. EMT conduit, 10 ft sticks",
                 *           "estimatedQuantity": 2400,
                 *           "unitOfMeasure": "LF",
                 *           "unitPrice": 0.62,
                 *           "mpn": "101543",
                 *           "upc": "786776101547",
                 *           "workBreakdownStructureValues": [
                 *             {
                 *               "structureType": "Floor",
                 *               "value": "Level 2"
                 *             },
                 *             {
                 *               "structureType": "Cost Code",
                 *               "value": "26-0533"
                 *             }
                 *           ]
                 *         },
                 *         {
                 *           "description": "4 in. square box, 2-1/8 in. deep",
                 *           "estimatedQuantity": 180,
                 *           "unitPrice": 3.15,
                 *           "mpn": "52171-K",
                 *           "workBreakdownStructureValues": [
                 *             {
                 *               "structureType": "Floor",
                 *               "value": "Level 2"
                 *             }
                 *           ]
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description The items (1 to 1000; checked by the service so that the messages are the ones above). */
                    billOfMaterialsItems: components["schemas"]["BillOfMaterialsItemCreate"][];
                };
            };
        };
        responses: {
            /** @description The created items, in the order given. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "catalogId": null,
                     *         "description": "3/4 in. EMT conduit, 10 ft sticks",
                     *         "estimatedQuantity": 2400,
                     *         "mpn": "101543",
                     *         "unitOfMeasure": "LF",
                     *         "unitPrice": 0.62,
                     *         "upc": "786776101547",
                     *         "workBreakdownStructureValues": [
                     *           {
                     *             "structureType": "Floor",
                     *             "value": "Level 2"
                     *           },
                     *           {
                     *             "structureType": "Cost Code",
                     *             "value": "26-0533"
                     *           }
                     *         ],
                     *         "deletedAt": null,
                     *         "createdAt": "2026-10-05T14:10:00.000Z",
                     *         "updatedAt": "2026-10-05T14:10:00.000Z"
                     *       },
                     *       {
                     *         "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *         "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "catalogId": null,
                     *         "description": "4 in. square box, 2-1/8 in. deep",
                     *         "estimatedQuantity": 180,
                     *         "mpn": "52171-K",
                     *         "unitOfMeasure": "EA",
                     *         "unitPrice": 3.15,
                     *         "upc": null,
                     *         "workBreakdownStructureValues": [
                     *           {
                     *             "structureType": "Floor",
                     *             "value": "Level 2"
                     *           }
                     *         ],
                     *         "deletedAt": null,
                     *         "createdAt": "2026-10-05T14:10:00.000Z",
                     *         "updatedAt": "2026-10-05T14:10:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["BillOfMaterialsItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    deleteBillOfMaterialsItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The bill-of-materials item's ID.
                 * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
                 */
                billOfMaterialsItemId: components["parameters"]["BillOfMaterialsItemId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted item. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "catalogId": null,
                     *       "description": "3/4 in. EMT conduit, 10 ft sticks",
                     *       "estimatedQuantity": 2400,
                     *       "mpn": "101543",
                     *       "unitOfMeasure": "LF",
                     *       "unitPrice": 0.62,
                     *       "upc": "786776101547",
                     *       "workBreakdownStructureValues": [],
                     *       "deletedAt": "2026-11-12T09:45:00.000Z",
                     *       "createdAt": "2026-10-05T14:10:00.000Z",
                     *       "updatedAt": "2026-11-12T09:45:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BillOfMaterialsItem"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateBillOfMaterialsItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The bill-of-materials item's ID.
                 * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
                 */
                billOfMaterialsItemId: components["parameters"]["BillOfMaterialsItemId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "input": {
                 *         "estimatedQuantity": 2600,
                 *         "unitPrice": 0.58,
                 *         "workBreakdownStructureValues": [
                 *           {
                 *             "structureType": "Floor",
                 *             "value": "Level 3"
                 *           },
                 *           {
                 *             "structureType": "System",
                 *             "value": "Lighting"
                 *           }
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": {
                    input: components["schemas"]["BillOfMaterialsItemUpdate"];
                };
            };
        };
        responses: {
            /** @description The updated item. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "catalogId": null,
                     *       "description": "3/4 in. EMT conduit, 10 ft sticks",
                     *       "estimatedQuantity": 2600,
                     *       "mpn": "101543",
                     *       "unitOfMeasure": "LF",
                     *       "unitPrice": 0.58,
                     *       "upc": "786776101547",
                     *       "workBreakdownStructureValues": [
                     *         {
                     *           "structureType": "Floor",
                     *           "value": "Level 3"
                     *         },
                     *         {
                     *           "structureType": "Cost Code",
                     *           "value": "26-0533"
                     *         },
                     *         {
                     *           "structureType": "System",
                     *           "value": "Lighting"
                     *         }
                     *       ],
                     *       "deletedAt": null,
                     *       "createdAt": "2026-10-05T14:10:00.000Z",
                     *       "updatedAt": "2026-11-12T09:45:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["BillOfMaterialsItem"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateBillOfMaterialsItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "inputs": [
                 *         {
                 *           "billOfMaterialsItemId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                 *           "input": {
                 *             "estimatedQuantity": 2600,
                 *             "unitPrice": 0.58,
                 *             "workBreakdownStructureValues": [
                 *               {
                 *                 "structureType": "Floor",
                 *                 "value": "Level 3"
                 *               },
                 *               {
                 *                 "structureType": "System",
                 *                 "value": "Lighting"
                 *               }
                 *             ]
                 *           }
                 *         },
                 *         {
                 *           "billOfMaterialsItemId": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                 *           "input": {
                 *             "estimatedQuantity": 200
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description The updates (1 to 1000, distinct IDs; checked by the service so that the messages are the ones above). */
                    inputs: components["schemas"]["BillOfMaterialsItemBatchUpdate"][];
                };
            };
        };
        responses: {
            /** @description The updated items, in the order of `inputs`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "catalogId": null,
                     *         "description": "3/4 in. EMT conduit, 10 ft sticks",
                     *         "estimatedQuantity": 2600,
                     *         "mpn": "101543",
                     *         "unitOfMeasure": "LF",
                     *         "unitPrice": 0.58,
                     *         "upc": "786776101547",
                     *         "workBreakdownStructureValues": [
                     *           {
                     *             "structureType": "Floor",
                     *             "value": "Level 3"
                     *           },
                     *           {
                     *             "structureType": "Cost Code",
                     *             "value": "26-0533"
                     *           },
                     *           {
                     *             "structureType": "System",
                     *             "value": "Lighting"
                     *           }
                     *         ],
                     *         "deletedAt": null,
                     *         "createdAt": "2026-10-05T14:10:00.000Z",
                     *         "updatedAt": "2026-11-12T09:45:00.000Z"
                     *       },
                     *       {
                     *         "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *         "billOfMaterialsId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "catalogId": null,
                     *         "description": "4 in. square box, 2-1/8 in. deep",
                     *         "estimatedQuantity": 200,
                     *         "mpn": "52171-K",
                     *         "unitOfMeasure": "EA",
                     *         "unitPrice": 3.15,
                     *         "upc": null,
                     *         "workBreakdownStructureValues": [
                     *           {
                     *             "structureType": "Floor",
                     *             "value": "Level 2"
                     *           }
                     *         ],
                     *         "deletedAt": null,
                     *         "createdAt": "2026-10-05T14:10:00.000Z",
                     *         "updatedAt": "2026-11-12T09:45:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["BillOfMaterialsItem"][];
                };
            };
            /** @description A request-level error, or every rejected element (one line each, prefixed `Position <n>: `). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "/problems/validation-failed",
                     *       "title": "Validation failed",
                     *       "status": 400,
                     *       "detail": "2 elements were rejected.",
                     *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                     *       "errors": [
                     *         {
                     *           "message": "Position 0: input.estimatedQuantity: must be a whole number (rule integer)\nPosition 3: billOfMaterialsItem 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42 not found"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            401: components["responses"]["Unauthorized"];
        };
    };
}
type WithRequired<T, K extends keyof T> = T & {
    [P in K]-?: T[P];
};
