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
    "/requisitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List requisitions
         * @description Lists the organization's requisitions (field requests). Deleted requisitions are never listed. Ordered by `createdAt` unless `orderBy` says otherwise; `id` breaks ties.
         */
        get: operations["listRequisitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/requisitions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The requisition's ID.
                 * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
                 */
                id: components["parameters"]["RequisitionId"];
            };
            cookie?: never;
        };
        /**
         * Get a requisition
         * @description Reads one requisition. A deleted requisition is answered with 404, like a missing one.
         */
        get: operations["getRequisition"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/requisitions/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The requisition's ID.
                 * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
                 */
                id: components["parameters"]["RequisitionId"];
            };
            cookie?: never;
        };
        /**
         * List the items of a requisition
         * @description Lists a requisition's items, ordered by `lineNumber` ascending unless `orderBy` says otherwise. 404 when the requisition does not exist or is deleted.
         *
         *     Item `state` is one of UNPROCESSED, ACKNOWLEDGED, PARTIALLY_ADDED_TO_PO, ADDED_TO_PO, ADDED_TO_WAREHOUSE_REQUEST, REJECTED (see RequisitionItemState); `states` gives the quantity of the line in each stage.
         */
        get: operations["listRequisitionItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/requisitions/{id}/updateRequisitionState": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The requisition's ID.
                 * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
                 */
                id: components["parameters"]["RequisitionId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the state of a requisition
         * @description Sets the requisition's state to the `state` query parameter (required; a RequisitionState) from any state, and returns the updated requisition. `updatedAt` is set and `updatedById` becomes the caller. Setting `CLOSED` stamps `manuallyClosedAt` (again on every call); setting any other state clears it, since the requisition is no longer closed. No request body. 404 when the requisition does not exist or is deleted.
         */
        patch: operations["updateRequisitionState"];
        trace?: never;
    };
    "/warehouse-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List warehouse requests
         * @description Lists the organization's warehouse requests, ordered by `createdAt` unless `orderBy` says otherwise; `id` breaks ties. Page size at most 100 (`limit` above 100 is a 400).
         */
        get: operations["listWarehouseRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/warehouse-requests/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                id: components["parameters"]["WarehouseRequestId"];
            };
            cookie?: never;
        };
        /**
         * Get a warehouse request
         * @description Reads one warehouse request. The same request is served at `/warehouse-requests/{id}` and `/warehouseRequests/{id}` (both spellings of the spec).
         */
        get: operations["getWarehouseRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/warehouse-requests/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                id: components["parameters"]["WarehouseRequestId"];
            };
            cookie?: never;
        };
        /**
         * List the items of a warehouse request
         * @description Lists a warehouse request's items, ordered by `lineNumber` ascending unless `orderBy` says otherwise; `id` breaks ties. Page size at most 100. Served at `/warehouse-requests/{id}/items` and `/warehouseRequests/{warehouseRequestId}/items` (both spellings of the spec). 404 when the request does not exist.
         */
        get: operations["listWarehouseRequestItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/warehouseRequests/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                id: components["parameters"]["WarehouseRequestId"];
            };
            cookie?: never;
        };
        /**
         * Get a warehouse request (camelCase path)
         * @description Reads one warehouse request. The same request is served at `/warehouse-requests/{id}` and `/warehouseRequests/{id}` (both spellings of the spec).
         */
        get: operations["getWarehouseRequestLegacy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/warehouseRequests/{warehouseRequestId}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                warehouseRequestId: components["parameters"]["WarehouseRequestIdCamel"];
            };
            cookie?: never;
        };
        /**
         * List the items of a warehouse request (camelCase path)
         * @description Lists a warehouse request's items, ordered by `lineNumber` ascending unless `orderBy` says otherwise; `id` breaks ties. Page size at most 100. Served at `/warehouse-requests/{id}/items` and `/warehouseRequests/{warehouseRequestId}/items` (both spellings of the spec). 404 when the request does not exist.
         */
        get: operations["listWarehouseRequestItemsLegacy"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List delivery receipts
         * @description Lists the organization's field delivery receipts.
         *
         *     `filter[issueType_in]` selects by issue kind (the receipt's `issues`): when omitted it is `NO_ISSUES` (only receipts whose items have no issue); `ALL` returns every receipt; otherwise receipts having any listed kind (`NO_ISSUES` in a list adds the receipts without issues). Give the kinds comma-separated (`filter[issueType_in]=MISSING,DAMAGED`) or repeated; an unknown kind is a 400.
         *
         *     Deleted receipts are left out unless `includeDeleted=true`; they carry `deleted: true` and `archivedAt`. Deleting a receipt sets its `updatedAt`, so `includeDeleted=true&filter[updatedAt_gt]=<time>` finds the receipts changed or deleted since that time. Ordered by `createdAt` unless `orderBy` says otherwise; `id` breaks ties.
         */
        get: operations["listDeliveryReceipts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The delivery receipt's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["DeliveryReceiptId"];
            };
            cookie?: never;
        };
        /**
         * Get a delivery receipt
         * @description Reads one delivery receipt. A deleted receipt is answered with 404 unless `includeDeleted=true` (then it carries `deleted: true`).
         */
        get: operations["getDeliveryReceipt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/deliveries/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The delivery receipt's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["DeliveryReceiptId"];
            };
            cookie?: never;
        };
        /**
         * List the items of a delivery receipt
         * @description Lists a delivery receipt's items, ordered by `createdAt` unless `orderBy` says otherwise; `id` breaks ties. 404 when the receipt does not exist or is deleted.
         */
        get: operations["listDeliveryReceiptItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/deliveries/{id}/updateIntegrationState": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The delivery receipt's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["DeliveryReceiptId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report the integration state of a delivery receipt
         * @description Stores the integrating system's `integrationState` and `integrationMessage` (a missing or null message clears the stored one) and returns the receipt. `integrationMessage` is required, non-empty, when the state is `ERROR` (400 naming `body.integrationMessage`). `LINKED` also sets `integrationLastSync`. A report is not a change to the receipt: `updatedAt` stays, so an integrator polling `filter[updatedAt_gt]` is not sent its own report back. 404 when the receipt does not exist or is deleted.
         */
        post: operations["updateDeliveryReceiptIntegrationState"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{orderId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
                 */
                orderId: components["parameters"]["DeliveryOrderId"];
            };
            cookie?: never;
        };
        /**
         * List the delivery receipts of an order
         * @description Lists the delivery receipts recorded against one order, with the same filters, ordering and `includeDeleted` as `GET /deliveries`. 404 when the order does not exist, is deleted or belongs to another organization.
         *
         *     `filter[issueType_in]` selects by issue kind (the receipt's `issues`): when omitted it is `NO_ISSUES` (only receipts whose items have no issue); `ALL` returns every receipt; otherwise receipts having any listed kind (`NO_ISSUES` in a list adds the receipts without issues). Give the kinds comma-separated (`filter[issueType_in]=MISSING,DAMAGED`) or repeated; an unknown kind is a 400.
         *
         *     Deleted receipts are left out unless `includeDeleted=true`; they carry `deleted: true` and `archivedAt`. Deleting a receipt sets its `updatedAt`, so `includeDeleted=true&filter[updatedAt_gt]=<time>` finds the receipts changed or deleted since that time. Ordered by `createdAt` unless `orderBy` says otherwise; `id` breaks ties.
         */
        get: operations["listOrderDeliveryReceipts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invoices
         * @description Lists the organization's invoices (deleted ones only with `includeDeleted=true`; they carry `deletedAt`). Ordered by `createdAt` unless `orderBy` says otherwise; `id` breaks ties. Integration state is filtered with `filter[integrationState_in]` only.
         */
        get: operations["listInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/paid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark invoices paid
         * @description Moves every listed invoice, from any state, to `CLOSED` and sets `paidAt` (now) and `paidById` (`userId`); an invoice not yet approved also gets `approvedAt`/`approvedById` the same way (a paid invoice counts as approved). `updatedAt` is set. Returns the updated invoices in the order of `ids` (a repeated ID once).
         *
         *     All or nothing: `userId` must be a user of the organization and every ID an invoice of the organization that is not deleted; otherwise the request fails with 404 naming the first unknown value and no invoice changes.
         */
        post: operations["markInvoicesPaid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The invoice's ID.
                 * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
                 */
                id: components["parameters"]["InvoiceId"];
            };
            cookie?: never;
        };
        /**
         * Get an invoice
         * @description Reads one invoice. A deleted invoice is answered with 404 unless `includeDeleted=true`.
         */
        get: operations["getInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The invoice's ID.
                 * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
                 */
                id: components["parameters"]["InvoiceId"];
            };
            cookie?: never;
        };
        /**
         * List the items of an invoice
         * @description Lists an invoice's items, ordered by `lineNumber` ascending unless `orderBy` says otherwise; `id` breaks ties. 404 when the invoice does not exist or is deleted.
         */
        get: operations["listInvoiceItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoice-items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Bulk pull of invoice items
         * @description Invoice items across all invoices of the organization, with flattened codes and the parent invoice's `jobId` and `vendorId`. Items of deleted invoices are left out. Defaults: `limit` 500 (at most 2500), `offset` 0, `orderBy` `createdAt`, `direction` `DESC`; `id` breaks ties. `meta.total` counts every item matching the filters; `meta.limit` and `meta.offset` echo the page used.
         */
        get: operations["listAllInvoiceItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
         * @description State of a requisition (field request).
         *     - `DRAFT`: being written in the field, not yet sent
         *     - `OPEN`: sent to purchasing, not yet worked on
         *     - `IN_REVIEW`: purchasing is reviewing it
         *     - `ACKNOWLEDGED`: purchasing acknowledged it
         *     - `PARTIALLY_FULFILLED`: some of its items are on orders or warehouse requests
         *     - `CLOSED`: closed (fulfilled, or closed by hand; then `manuallyClosedAt` is set)
         * @example OPEN
         * @enum {string}
         */
        RequisitionState: "ACKNOWLEDGED" | "CLOSED" | "DRAFT" | "OPEN" | "IN_REVIEW" | "PARTIALLY_FULFILLED";
        /**
         * @description When the material of a requisition is needed.
         *     - `ASAP`: as soon as possible
         *     - `DATE`: on `needByDateDay`, within `needByWindow`
         *     - `HOLD_FOR_RELEASE`: bought now, released to the site later
         * @example DATE
         * @enum {string}
         */
        RequisitionNeedByDateCategory: "ASAP" | "DATE" | "HOLD_FOR_RELEASE";
        /** @description A requisition (field request for material). */
        Requisition: {
            /**
             * @description Unique ID.
             * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-02T14:05:31.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time (a state change through the API also sets it).
             * @example 2026-11-03T09:12:44.000Z
             */
            updatedAt: string;
            /**
             * @description The user who created it.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string | null;
            /**
             * @description The user who changed it last (the caller of a state change through the API).
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            updatedById: string | null;
            /**
             * @description The job the material is for.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId: string;
            /**
             * @description Identifier as displayed.
             * @example REQ-1042-0007
             */
            identifier: string;
            state: components["schemas"]["RequisitionState"];
            /**
             * @description The purchasing agent (a user) handling it.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            orderingAgentId: string;
            /**
             * @description Notes.
             * @example Deliver to the north gate; forklift on site.
             */
            notes: string | null;
            /**
             * Format: date-time
             * @description Deletion time. Deleted requisitions are never returned, so this is always null in responses.
             * @example null
             */
            deletedAt: string | null;
            /**
             * @description The user who deleted it (always null in responses, see `deletedAt`).
             * @example null
             */
            deletedById: string | null;
            /**
             * @description Where to deliver; null when not set.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            deliveryLocationId: string | null;
            /**
             * Format: date-time
             * @description When it was closed by hand (set when the state is set to `CLOSED`, cleared when it leaves `CLOSED`).
             * @example null
             */
            manuallyClosedAt: string | null;
            needByDateCategory: components["schemas"]["RequisitionNeedByDateCategory"];
            /**
             * Format: date-time
             * @description Requested delivery day.
             * @example 2026-11-10T00:00:00.000Z
             */
            needByDateDay: string | null;
            /**
             * @description Requested delivery window, a label followed by hours in parentheses.
             * @example Morning (7am - 11am)
             */
            needByWindow: string;
            /**
             * Format: date-time
             * @description When it was sent to purchasing.
             * @example 2026-11-02T14:20:00.000Z
             */
            sentAt: string | null;
            /**
             * Format: date-time
             * @description When it is scheduled to be sent.
             * @example null
             */
            scheduledAt: string | null;
            /**
             * @description Title.
             * @example Level 2 rough-in copper
             */
            title: string | null;
            /**
             * @description The vendor contact, when it was sent directly to a vendor.
             * @example null
             */
            vendorContactId: string | null;
        };
        /**
         * @description Where a requisition item stands (the service's full set of item states).
         *     - `UNPROCESSED`: requested, not yet handled by purchasing
         *     - `ACKNOWLEDGED`: purchasing acknowledged it and will source it
         *     - `PARTIALLY_ADDED_TO_PO`: part of its quantity is on a purchase order
         *     - `ADDED_TO_PO`: its whole quantity is on a purchase order (`purchaseOrderId`, `lineItemId`)
         *     - `ADDED_TO_WAREHOUSE_REQUEST`: it is supplied from a warehouse through a warehouse request
         *     - `REJECTED`: purchasing rejected it (`rejectionReason`, `rejectionMessage`)
         * @example ADDED_TO_PO
         * @enum {string}
         */
        RequisitionItemState: "UNPROCESSED" | "ACKNOWLEDGED" | "PARTIALLY_ADDED_TO_PO" | "ADDED_TO_PO" | "ADDED_TO_WAREHOUSE_REQUEST" | "REJECTED";
        /** @description How much of the item's quantity is in each stage (a quantity per stage; 0 when none). */
        RequisitionItemStates: {
            /**
             * @description Quantity placed on purchase orders.
             * @example 40
             */
            AddedToPO: number;
            /**
             * @description Quantity requested by the field.
             * @example 40
             */
            Requested: number;
            /**
             * @description Quantity purchasing rejected.
             * @example 0
             */
            RejectedByPurchasing: number;
            /**
             * @description Quantity supplied through warehouse requests.
             * @example 0
             */
            AddedToWarehouseRequest: number;
            /**
             * @description Quantity purchasing acknowledged.
             * @example 40
             */
            AcknowledgedByPurchasing: number;
        };
        /** @description A line of a requisition. */
        RequisitionItem: {
            /**
             * @description Unique ID.
             * @example 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-02T14:05:31.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-03T09:12:44.000Z
             */
            updatedAt: string;
            /**
             * @description Whether an equivalent product may be supplied instead.
             * @example true
             */
            allowSubstitution: boolean;
            /**
             * @description The user who added the item.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string | null;
            /**
             * @description The order item it was placed on; null until it is on an order.
             * @example e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b
             */
            lineItemId: string | null;
            /**
             * @description The order it was placed on; null until it is on an order.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            purchaseOrderId: string | null;
            /**
             * @description The requisition.
             * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
             */
            requisitionId: string;
            /**
             * @description What is requested.
             * @example 3/4 in. Type L copper pipe, 20 ft
             */
            description: string | null;
            /**
             * Format: int32
             * @description Position within the requisition (lists default to this order).
             * @example 1
             */
            lineNumber: number;
            /**
             * @description Manufacturer part number.
             * @example LH04020
             */
            manufacturerPartNumber: string | null;
            /**
             * @description Notes.
             * @example Cut to 10 ft if possible.
             */
            notes: string | null;
            /**
             * @description Requested quantity.
             * @example 40
             */
            quantity: number | null;
            /**
             * @description Quantity delivered so far.
             * @example 24
             */
            quantityDelivered: number;
            /**
             * @description Purchasing's message when it rejected the item.
             * @example null
             */
            rejectionMessage: string | null;
            /**
             * @description Why purchasing rejected the item.
             * @example null
             */
            rejectionReason: string | null;
            state: components["schemas"]["RequisitionItemState"];
            /**
             * @description Unit of the quantity.
             * @example EA
             */
            unitsOfMeasure: string | null;
            /**
             * @description Universal product code.
             * @example 039923040209
             */
            universalProductCode: string | null;
            /**
             * @description Opaque data of the integrating system (an empty object when none).
             * @example {
             *       "erpLineRef": "PR-88123-1"
             *     }
             */
            integrationData: {
                [key: string]: unknown;
            };
            /**
             * @description Catalog item it was picked from.
             * @example CAT-CU-L-075-20
             */
            catalogId: string | null;
            states: components["schemas"]["RequisitionItemStates"];
        };
        /**
         * @description State of a warehouse request.
         *     - `DRAFT`: being written, not yet sent to the warehouse
         *     - `SENT`: sent to the warehouse
         *     - `ACKNOWLEDGED`: the warehouse acknowledged it
         * @example SENT
         * @enum {string}
         */
        WarehouseRequestState: "ACKNOWLEDGED" | "DRAFT" | "SENT";
        /** @description A request for material from a warehouse. */
        WarehouseRequest: {
            /**
             * @description Unique ID.
             * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
             */
            id: string;
            /**
             * @description Identifier as displayed.
             * @example WR-1042-0003
             */
            identifier: string;
            state: components["schemas"]["WarehouseRequestState"];
            /**
             * Format: date-time
             * @description Day the material is needed on the job.
             * @example 2026-11-12T00:00:00.000Z
             */
            needByDateDay: string;
            /**
             * @description The warehouse location the material comes from.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            locationId: string;
            /**
             * @description The job the material is for.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId: string;
            /**
             * @description The user who created it.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-04T08:30:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-05T11:02:17.000Z
             */
            updatedAt: string;
        };
        /**
         * @description State of a warehouse request item.
         *     - `DRAFT`: on a request that has not been sent
         *     - `REQUESTED`: requested from the warehouse
         *     - `PARTIAL_PICK`: part of the quantity has been picked (`pickedQuantity`)
         *     - `PICKED`: the whole quantity has been picked
         *     - `SHIPPED`: shipped to the job
         *     - `UNAVAILABLE`: the warehouse cannot supply it
         *     - `CANCELLED`: cancelled
         * @example PICKED
         * @enum {string}
         */
        WarehouseRequestItemState: "CANCELLED" | "DRAFT" | "PARTIAL_PICK" | "PICKED" | "REQUESTED" | "SHIPPED" | "UNAVAILABLE";
        /** @description A line of a warehouse request. */
        WarehouseRequestItem: {
            /**
             * @description Unique ID.
             * @example 8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f
             */
            id: string;
            /**
             * @description The warehouse request.
             * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
             */
            warehouseRequestId: string;
            /**
             * Format: int32
             * @description Position within the request (lists default to this order).
             * @example 1
             */
            lineNumber: number;
            state: components["schemas"]["WarehouseRequestItemState"];
            /**
             * @description What is requested.
             * @example 2x4 SPF stud, 8 ft
             */
            description: string;
            /**
             * @description Requested quantity.
             * @example 120
             */
            quantity: number | null;
            /**
             * @description Quantity picked so far; null before picking starts.
             * @example 120
             */
            pickedQuantity: number | null;
            /**
             * @description Unit of the quantities.
             * @example EA
             */
            uom: string;
            /**
             * @description Notes.
             * @example Straight stock only.
             */
            notes: string | null;
            /**
             * @description Universal product code.
             * @example 082011500089
             */
            upc: string | null;
            /**
             * @description Warehouse stock-keeping unit.
             * @example LUM-SPF-2408
             */
            sku: string | null;
            /**
             * @description Manufacturer part number.
             * @example SPF248
             */
            mpn: string | null;
            /**
             * @description The requisition the line came from; null when it was added on the warehouse request directly.
             * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
             */
            requisitionId: string | null;
            /**
             * @description The user who added the line.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-04T08:30:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-05T11:02:17.000Z
             */
            updatedAt: string;
        };
        /**
         * @description State of a delivery receipt.
         *     - `SUBMITTED`: submitted by the field
         *     - `DRAFT`: submission pending
         * @example SUBMITTED
         * @enum {string}
         */
        DeliveryReceiptState: "SUBMITTED" | "DRAFT";
        /**
         * @description A kind of delivery issue.
         *     - `MISSING`: material did not arrive
         *     - `DAMAGED`: material arrived damaged
         *     - `WRONG_ITEM`: a different item arrived
         *     - `BACKORDERED`: material is on backorder
         *     - `NO_ISSUES`: received without issue (a receipt whose items have none of the kinds above)
         * @example DAMAGED
         * @enum {string}
         */
        ReceiptIssueKind: "MISSING" | "DAMAGED" | "NO_ISSUES" | "WRONG_ITEM" | "BACKORDERED";
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
        /** @description A stored file (read-only). */
        File: {
            /**
             * @description Unique ID.
             * @example 4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e
             */
            id: string;
            /**
             * @description File name.
             * @example packing-slip-PO-1042-0007.pdf
             */
            name: string | null;
            /**
             * @description Where the file can be downloaded.
             * @example https://files.procurement.dev/7d1c2f5e/packing-slip-PO-1042-0007.pdf
             */
            url: string | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-10-02T17:45:12.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-02T17:45:12.000Z
             */
            updatedAt: string;
        };
        /** @description A field delivery receipt (warehouse deliveries are not part of this service). */
        DeliveryReceipt: {
            /**
             * @description Unique ID.
             * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
             */
            id: string;
            /**
             * @description Receipt identifier.
             * @example DR-1042-0012
             */
            identifier: string | null;
            /**
             * @description ID of the order delivered against; null for a delivery without an order.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            purchaseOrder: string | null;
            /**
             * @description Notes.
             * @example Two fittings boxes crushed; photos attached.
             */
            notes: string | null;
            state: components["schemas"]["DeliveryReceiptState"];
            /**
             * @description The issue kinds present on the receipt's items: every one of `MISSING`, `DAMAGED`,
             *     `WRONG_ITEM`, `BACKORDERED` that has a non-zero amount on at least one item, in that order;
             *     `["NO_ISSUES"]` when none has (also for a receipt without items). `filter[issueType_in]`
             *     matches against exactly this list.
             * @example [
             *       "DAMAGED"
             *     ]
             */
            issues: components["schemas"]["ReceiptIssueKind"][];
            /**
             * @description ID of the related warehouse request; null when none.
             * @example null
             */
            warehouseRequest: string | null;
            /**
             * @description Contacts notified about the delivery (e-mail addresses or names).
             * @example [
             *       "maria.chen@summitridge.example"
             *     ]
             */
            notifiedContacts: string[];
            /**
             * @description True when the receipt is deleted (only returned with `includeDeleted=true`).
             * @example false
             */
            deleted: boolean;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-06T15:40:02.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time; deleting a receipt sets it too.
             * @example 2026-11-06T15:52:40.000Z
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @description When the receipt was archived (deleted); null for a live receipt.
             * @example null
             */
            archivedAt: string | null;
            /**
             * @description ID of the user who created it.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdBy: string;
            /**
             * @description Reserved; always null (receipts are not linked to releases in this service).
             * @example null
             */
            release: {
                [key: string]: unknown;
            } | null;
            integrationState: components["schemas"]["IntegrationState"];
            /**
             * @description Message about the last sync (required when `integrationState` is `ERROR`).
             * @example null
             */
            integrationMessage: string | null;
            /**
             * Format: date-time
             * @description Last time `integrationState` became `LINKED`.
             * @example 2026-11-06T16:00:00.000Z
             */
            integrationLastSync: string | null;
            /** @description Files attached to the receipt (packing slips, photos), oldest first. */
            attachments: components["schemas"]["File"][];
        };
        /** @description The amount of the item's quantity per issue kind (every kind present; 0 when none). */
        ReceiptItemIssues: {
            /**
             * @description Amount that did not arrive.
             * @example 0
             */
            MISSING: number;
            /**
             * @description Amount that arrived damaged.
             * @example 2
             */
            DAMAGED: number;
            /**
             * @description Amount received without issue.
             * @example 38
             */
            NO_ISSUES: number;
            /**
             * @description Amount that arrived as a different item.
             * @example 0
             */
            WRONG_ITEM: number;
            /**
             * @description Amount on backorder.
             * @example 0
             */
            BACKORDERED: number;
        };
        /** @description A line of a delivery receipt. */
        DeliveryReceiptItem: {
            /**
             * @description Unique ID.
             * @example b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e
             */
            id: string;
            /**
             * @description The delivery receipt.
             * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
             */
            deliveryReceiptId: string;
            /**
             * @description What was delivered.
             * @example 3/4 in. copper 90 deg elbow, box of 25
             */
            description: string;
            /**
             * @description Notes.
             * @example 2 boxes crushed
             */
            notes: string | null;
            /**
             * @description Overall quantity of the line (as ordered).
             * @example 40
             */
            quantity: number;
            /**
             * @description Quantity received on this receipt.
             * @example 40
             */
            quantityReceivedThisReceipt: number;
            /**
             * @description Unit of the quantities.
             * @example BOX
             */
            unitsOfMeasure: string;
            /**
             * @description The order item delivered; null on a delivery without an order.
             * @example e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b
             */
            itemId: string | null;
            issues: components["schemas"]["ReceiptItemIssues"];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-06T15:40:02.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-06T15:52:40.000Z
             */
            updatedAt: string;
        };
        /** @description What the integrating system reports about a delivery receipt. */
        DeliveryReceiptIntegrationUpdate: {
            integrationState: components["schemas"]["IntegrationState"];
            /**
             * @description Message about the sync; required (non-empty) when `integrationState` is `ERROR`. Stored as given; omitted or null clears it.
             * @example Receipt posted to AP as RCV-20931.
             */
            integrationMessage?: string | null;
        };
        /**
         * @description Kind of invoice document.
         *     - `INVOICE`: a vendor invoice (amounts owed)
         *     - `CREDIT_MEMO`: a vendor credit memo (amounts credited)
         * @example INVOICE
         * @enum {string}
         */
        InvoiceType: "INVOICE" | "CREDIT_MEMO";
        /**
         * @description State of an invoice.
         *     - `INBOX`: new, not yet reviewed
         *     - `PENDING`: needs review and approval
         *     - `APPROVED`: approved for payment
         *     - `CLOSED`: settled (paid), no longer active
         * @example APPROVED
         * @enum {string}
         */
        InvoiceState: "APPROVED" | "CLOSED" | "INBOX" | "PENDING";
        /**
         * @description Sync status of an invoice with the integrating system (invoices have no `OUT_OF_SYNC`).
         *     - `NOT_LINKED`: not yet written to the integrating system (every new invoice starts here)
         *     - `LINKING`: the integrating system is writing it
         *     - `LINKED`: in sync
         *     - `ERROR`: the last sync failed; `integrationMessage` explains why
         * @example LINKED
         * @enum {string}
         */
        InvoiceIntegrationState: "NOT_LINKED" | "LINKING" | "LINKED" | "ERROR";
        /** @description A vendor invoice (or credit memo). */
        Invoice: {
            /**
             * @description Unique ID.
             * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-07T10:15:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time (marking it paid sets it too).
             * @example 2026-11-09T16:45:12.000Z
             */
            updatedAt: string;
            /**
             * @description The user who created it.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string;
            /**
             * Format: date-time
             * @description Deletion time; only deleted invoices (returned with `includeDeleted=true`) have one.
             * @example null
             */
            deletedAt: string | null;
            /**
             * @description Title.
             * @example Ferguson - copper rough-in, L2
             */
            title: string | null;
            /**
             * @description The job billed; null when not assigned.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId: string | null;
            /**
             * @description The vendor who sent it; null when not assigned.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            vendorId: string | null;
            /**
             * @description The purchase order it bills; null when not matched to one.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            orderId: string | null;
            type: components["schemas"]["InvoiceType"];
            /**
             * Format: date-time
             * @description When it was approved.
             * @example 2026-11-08T09:00:00.000Z
             */
            approvedAt: string | null;
            /**
             * @description Who approved it.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            approvedById: string | null;
            /**
             * Format: date-time
             * @description When it was assigned to its current reviewer.
             * @example 2026-11-07T10:20:00.000Z
             */
            assignedAt: string | null;
            /**
             * @description Category of the invoice (values written exactly so); null when not categorized.
             *     - `genContractor`: general-contractor work
             *     - `material`: material
             *     - `miscellaneous`: anything else
             *     - `rentals`: equipment rentals
             * @example material
             * @enum {string|null}
             */
            category: "genContractor" | "material" | "miscellaneous" | "rentals" | null;
            /**
             * Format: date-time
             * @description Payment due date.
             * @example 2026-12-07T00:00:00.000Z
             */
            dueDate: string | null;
            /**
             * Format: date-time
             * @description Issue date.
             * @example 2026-11-06T00:00:00.000Z
             */
            invoiceDate: string | null;
            /**
             * Format: date-time
             * @description Ship date.
             * @example 2026-11-05T00:00:00.000Z
             */
            shipDate: string | null;
            /**
             * @description Names of the fields with discrepancies against the order or receipts (empty when none).
             * @example [
             *       "unitPrice"
             *     ]
             */
            exceptions: string[];
            /**
             * @description Whether it is flagged with an issue (see `flagMessage`).
             * @example false
             */
            flagged: boolean;
            /**
             * Format: date-time
             * @description When it was flagged.
             * @example null
             */
            flaggedAt: string | null;
            /**
             * @description Who flagged it.
             * @example null
             */
            flaggedById: string | null;
            /**
             * @description Description of the flagged issue.
             * @example null
             */
            flagMessage: string | null;
            /**
             * @description The vendor's invoice number.
             * @example S1029384.001
             */
            invoiceNumber: string | null;
            /**
             * Format: date-time
             * @description When it was paid (set by `POST /invoices/paid`).
             * @example 2026-11-09T16:45:12.000Z
             */
            paidAt: string | null;
            /**
             * @description Who recorded the payment.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            paidById: string | null;
            /**
             * @description Amount of payments, in dollars.
             * @example 2561.08
             */
            payments: number | null;
            /**
             * Format: date-time
             * @description When it was rejected.
             * @example null
             */
            rejectedAt: string | null;
            /**
             * @description Who rejected it.
             * @example null
             */
            rejectedById: string | null;
            /**
             * @description Why it was rejected.
             * @example null
             */
            rejectedReason: string | null;
            /**
             * @description The vendor's salesperson.
             * @example Dana Whitfield
             */
            salesperson: string | null;
            /**
             * @description Carrier or shipping method.
             * @example Vendor truck
             */
            shipVia: string | null;
            /**
             * @description Payment terms.
             * @example Net 30
             */
            terms: string | null;
            /**
             * @description Shipping cost in dollars (the spec's `shippingCost`).
             * @example 45
             */
            shippingCostFloat: number | null;
            state: components["schemas"]["InvoiceState"];
            integrationState: components["schemas"]["InvoiceIntegrationState"];
            /**
             * @description Message about the last sync (explains an `ERROR`).
             * @example null
             */
            integrationMessage: string | null;
            /** @description Files of the invoice (the scanned document first), oldest first. */
            attachments: components["schemas"]["File"][];
            /**
             * @description Sum of the line amounts before tax, in dollars.
             * @example 2350
             */
            subtotal: number | null;
            /**
             * @description Tax in dollars.
             * @example 166.08
             */
            tax: number | null;
            /**
             * @description Amount due in dollars (subtotal + tax + shipping).
             * @example 2561.08
             */
            totalDue: number | null;
            /**
             * @description Whether the invoice is exempt from tax.
             * @example false
             */
            taxExempt: boolean;
            /**
             * Format: date-time
             * @description When it was voided.
             * @example null
             */
            voidedAt: string | null;
            /**
             * @description Who voided it.
             * @example null
             */
            voidedById: string | null;
        };
        /** @description Invoices to mark paid, and who paid them. */
        InvoicesPaid: {
            /**
             * @description IDs of the invoices to mark paid (at most 1000; a repeated ID counts once).
             * @example [
             *       "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f"
             *     ]
             */
            ids: string[];
            /**
             * @description The user of the organization recording the payment (stored as `paidById`).
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            userId: string;
        };
        /** @description A line of an invoice. */
        InvoiceItem: {
            /**
             * @description Unique ID.
             * @example d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a
             */
            id: string;
            /**
             * @description The invoice.
             * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
             */
            invoiceId: string;
            /**
             * Format: int32
             * @description Position within the invoice (item lists of one invoice default to this order).
             * @example 1
             */
            lineNumber: number;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-07T10:15:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-07T10:15:00.000Z
             */
            updatedAt: string;
            /**
             * @description What was billed.
             * @example 3/4 in. Type L copper pipe, 20 ft
             */
            description: string | null;
            /**
             * @description Notes.
             * @example null
             */
            notes: string | null;
            /**
             * @description Quantity shipped (billed).
             * @example 40
             */
            shipQuantity: number | null;
            /**
             * @description Unit price in dollars.
             * @example 58.75
             */
            unitPriceFloat: number | null;
            /**
             * @description Extended price in dollars (shipQuantity x unitPriceFloat).
             * @example 2350
             */
            extPriceFloat: number | null;
            /**
             * @description Unit of the quantity.
             * @example EA
             */
            unitsOfMeasure: string | null;
            /**
             * @description Code of the tax code applied.
             * @example TX-CA
             */
            taxCode: string | null;
            /**
             * @description Tax rate applied (fraction, 0.0725 = 7.25 %).
             * @example 0.0725
             */
            taxRate: number | null;
            /**
             * @description Code of the phase charged.
             * @example 15-100
             */
            phaseCode: string | null;
            /**
             * @description Code of the cost category charged.
             * @example M
             */
            costCategory: string | null;
            /**
             * @description Whether the line has a discrepancy against the order or receipts.
             * @example false
             */
            hasException: boolean;
        };
        /** @description A line of an invoice as the bulk pull (`GET /invoice-items`) returns it, with the invoice item fields plus flattened codes and the parent invoice's job and vendor. */
        BulkInvoiceItem: {
            /**
             * @description Unique ID.
             * @example d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a
             */
            id: string;
            /**
             * @description The invoice.
             * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
             */
            invoiceId: string;
            /**
             * Format: int32
             * @description Position within the invoice (item lists of one invoice default to this order).
             * @example 1
             */
            lineNumber: number;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-07T10:15:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-07T10:15:00.000Z
             */
            updatedAt: string;
            /**
             * @description What was billed.
             * @example 3/4 in. Type L copper pipe, 20 ft
             */
            description: string | null;
            /**
             * @description Notes.
             * @example null
             */
            notes: string | null;
            /**
             * @description Quantity shipped (billed).
             * @example 40
             */
            shipQuantity: number | null;
            /**
             * @description Unit price in dollars.
             * @example 58.75
             */
            unitPriceFloat: number | null;
            /**
             * @description Extended price in dollars (shipQuantity x unitPriceFloat).
             * @example 2350
             */
            extPriceFloat: number | null;
            /**
             * @description Unit of the quantity.
             * @example EA
             */
            unitsOfMeasure: string | null;
            /**
             * @description Code of the tax code applied.
             * @example TX-CA
             */
            taxCode: string | null;
            /**
             * @description Tax rate applied (fraction, 0.0725 = 7.25 %).
             * @example 0.0725
             */
            taxRate: number | null;
            /**
             * @description Code of the phase charged.
             * @example 15-100
             */
            phaseCode: string | null;
            /**
             * @description Code of the cost category charged.
             * @example M
             */
            costCategory: string | null;
            /**
             * @description Whether the line has a discrepancy against the order or receipts.
             * @example false
             */
            hasException: boolean;
            /**
             * @description Manufacturer part number.
             * @example LH04020
             */
            manufacturerPartNumber: string | null;
            /**
             * @description Universal product code.
             * @example 039923040209
             */
            universalProductCode: string | null;
            /**
             * @description Extended price with tax, in dollars.
             * @example 2520.38
             */
            extPriceFloatIncludingTax: number | null;
            /**
             * @description Quantity after unit conversion.
             * @example 800
             */
            extendedQuantity: number | null;
            /**
             * @description Unit requested.
             * @example EA
             */
            requestedUOM: string | null;
            /**
             * @description Unit the price is per.
             * @example EA
             */
            pricingUOM: string | null;
            /**
             * @description Unit of extendedQuantity.
             * @example FT
             */
            extendedUOM: string | null;
            /**
             * @description Code of the phase charged.
             * @example 15-100
             */
            phaseCodeCode: string | null;
            /**
             * @description Code of the cost category charged.
             * @example M
             */
            costCategoryCode: string | null;
            /**
             * @description Code of the GL code charged.
             * @example 5100-MAT
             */
            glCodeCode: string | null;
            /**
             * @description Code of the tax code applied.
             * @example TX-CA
             */
            taxCodeCode: string | null;
            /**
             * @description Code of the cost type charged.
             * @example MAT
             */
            costTypeCode: string | null;
            /**
             * @description The job of the parent invoice.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId: string | null;
            /**
             * @description The vendor of the parent invoice.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            vendorId: string | null;
            /** @description The item code charged (id, code, description); null when none. */
            itemCode: {
                /**
                 * @description Unique ID.
                 * @example f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9
                 */
                id: string;
                /**
                 * @description Code.
                 * @example CU-L-075
                 */
                code: string;
                /**
                 * @description Description.
                 * @example Copper pipe type L 3/4 in.
                 */
                description: string | null;
            } | null;
            /**
             * @description Scaled unit price (when unit conversion applies).
             * @example 2.9375
             */
            scaledUnitPrice: number | null;
            /**
             * @description Free-form item code text.
             * @example CU-L-075
             */
            itemCodeText: string | null;
        };
        /** @description One page of a bulk invoice-item pull. */
        InvoiceItemPage: {
            /** @description Paging of the pull. */
            meta: {
                /**
                 * Format: int32
                 * @description Number of items matching the filters (the whole set, not the page).
                 * @example 1287
                 */
                total: number;
                /**
                 * Format: int32
                 * @description Page size used.
                 * @example 500
                 */
                limit: number;
                /**
                 * Format: int32
                 * @description Offset used.
                 * @example 0
                 */
                offset: number;
            };
            /** @description The page of items. */
            data: components["schemas"]["BulkInvoiceItem"][];
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
         * @description Field to order requisitions by (default `createdAt`).
         * @example createdAt
         */
        RequisitionOrderBy: "createdAt" | "id" | "needByDateDay" | "identifier" | "updatedAt";
        /** @description Conditions on requisitions; see "Filters and pagination". */
        RequisitionFilter: {
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
             * @description Matches when `needByDateDay` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_not?: string;
            /** @description Matches when `needByDateDay` is one of the listed values: repeat `filter[needByDateDay_in][]=` or give one comma-separated value. */
            needByDateDay_in?: string[];
            /** @description Matches when `needByDateDay` is none of the listed values: repeat `filter[needByDateDay_not_in][]=` or give one comma-separated value. */
            needByDateDay_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_gte?: string;
            /**
             * @description Matches when `identifier` equals the value.
             * @example J-1042
             */
            identifier?: string;
            /**
             * @description Matches when `identifier` does not equal the value.
             * @example J-1042
             */
            identifier_not?: string;
            /** @description Matches when `identifier` is one of the listed values: repeat `filter[identifier_in][]=` or give one comma-separated value. */
            identifier_in?: string[];
            /** @description Matches when `identifier` is none of the listed values: repeat `filter[identifier_not_in][]=` or give one comma-separated value. */
            identifier_not_in?: string[];
            /**
             * @description Matches when `identifier` is less than the value.
             * @example J-1042
             */
            identifier_lt?: string;
            /**
             * @description Matches when `identifier` is less than or equal to the value.
             * @example J-1042
             */
            identifier_lte?: string;
            /**
             * @description Matches when `identifier` is greater than the value.
             * @example J-1042
             */
            identifier_gt?: string;
            /**
             * @description Matches when `identifier` is greater than or equal to the value.
             * @example J-1042
             */
            identifier_gte?: string;
            /**
             * @description Matches when `identifier` contains (case-insensitive) the value.
             * @example J-1042
             */
            identifier_contains?: string;
            /**
             * @description Matches when `identifier` starts with (case-insensitive) the value.
             * @example J-1042
             */
            identifier_starts_with?: string;
            /**
             * @description Matches when `identifier` ends with (case-insensitive) the value.
             * @example J-1042
             */
            identifier_ends_with?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example ACKNOWLEDGED
             * @enum {string}
             */
            state?: "ACKNOWLEDGED" | "CLOSED" | "DRAFT" | "OPEN" | "IN_REVIEW" | "PARTIALLY_FULFILLED";
            /**
             * @description Matches when `state` does not equal the value.
             * @example ACKNOWLEDGED
             * @enum {string}
             */
            state_not?: "ACKNOWLEDGED" | "CLOSED" | "DRAFT" | "OPEN" | "IN_REVIEW" | "PARTIALLY_FULFILLED";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("ACKNOWLEDGED" | "CLOSED" | "DRAFT" | "OPEN" | "IN_REVIEW" | "PARTIALLY_FULFILLED")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("ACKNOWLEDGED" | "CLOSED" | "DRAFT" | "OPEN" | "IN_REVIEW" | "PARTIALLY_FULFILLED")[];
            /**
             * @description Matches when `title` equals the value.
             * @example J-1042
             */
            title?: string;
            /**
             * @description Matches when `title` does not equal the value.
             * @example J-1042
             */
            title_not?: string;
            /** @description Matches when `title` is one of the listed values: repeat `filter[title_in][]=` or give one comma-separated value. */
            title_in?: string[];
            /** @description Matches when `title` is none of the listed values: repeat `filter[title_not_in][]=` or give one comma-separated value. */
            title_not_in?: string[];
            /**
             * @description Matches when `title` is less than the value.
             * @example J-1042
             */
            title_lt?: string;
            /**
             * @description Matches when `title` is less than or equal to the value.
             * @example J-1042
             */
            title_lte?: string;
            /**
             * @description Matches when `title` is greater than the value.
             * @example J-1042
             */
            title_gt?: string;
            /**
             * @description Matches when `title` is greater than or equal to the value.
             * @example J-1042
             */
            title_gte?: string;
            /**
             * @description Matches when `title` contains (case-insensitive) the value.
             * @example J-1042
             */
            title_contains?: string;
            /**
             * @description Matches when `title` starts with (case-insensitive) the value.
             * @example J-1042
             */
            title_starts_with?: string;
            /**
             * @description Matches when `title` ends with (case-insensitive) the value.
             * @example J-1042
             */
            title_ends_with?: string;
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
         * @description The requisition's ID.
         * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
         */
        RequisitionId: string;
        /**
         * @description Field to order requisition items by (default `lineNumber`).
         * @example lineNumber
         */
        RequisitionItemOrderBy: "createdAt" | "id" | "lineNumber" | "updatedAt";
        /** @description Conditions on requisition items; see "Filters and pagination". */
        RequisitionItemFilter: {
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
             * @description Matches when `notes` equals the value.
             * @example J-1042
             */
            notes?: string;
            /**
             * @description Matches when `notes` does not equal the value.
             * @example J-1042
             */
            notes_not?: string;
            /** @description Matches when `notes` is one of the listed values: repeat `filter[notes_in][]=` or give one comma-separated value. */
            notes_in?: string[];
            /** @description Matches when `notes` is none of the listed values: repeat `filter[notes_not_in][]=` or give one comma-separated value. */
            notes_not_in?: string[];
            /**
             * @description Matches when `notes` is less than the value.
             * @example J-1042
             */
            notes_lt?: string;
            /**
             * @description Matches when `notes` is less than or equal to the value.
             * @example J-1042
             */
            notes_lte?: string;
            /**
             * @description Matches when `notes` is greater than the value.
             * @example J-1042
             */
            notes_gt?: string;
            /**
             * @description Matches when `notes` is greater than or equal to the value.
             * @example J-1042
             */
            notes_gte?: string;
            /**
             * @description Matches when `notes` contains (case-insensitive) the value.
             * @example J-1042
             */
            notes_contains?: string;
            /**
             * @description Matches when `notes` starts with (case-insensitive) the value.
             * @example J-1042
             */
            notes_starts_with?: string;
            /**
             * @description Matches when `notes` ends with (case-insensitive) the value.
             * @example J-1042
             */
            notes_ends_with?: string;
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
            /**
             * @description Matches when `state` equals the value.
             * @example UNPROCESSED
             * @enum {string}
             */
            state?: "UNPROCESSED" | "ACKNOWLEDGED" | "PARTIALLY_ADDED_TO_PO" | "ADDED_TO_PO" | "ADDED_TO_WAREHOUSE_REQUEST" | "REJECTED";
            /**
             * @description Matches when `state` does not equal the value.
             * @example UNPROCESSED
             * @enum {string}
             */
            state_not?: "UNPROCESSED" | "ACKNOWLEDGED" | "PARTIALLY_ADDED_TO_PO" | "ADDED_TO_PO" | "ADDED_TO_WAREHOUSE_REQUEST" | "REJECTED";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("UNPROCESSED" | "ACKNOWLEDGED" | "PARTIALLY_ADDED_TO_PO" | "ADDED_TO_PO" | "ADDED_TO_WAREHOUSE_REQUEST" | "REJECTED")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("UNPROCESSED" | "ACKNOWLEDGED" | "PARTIALLY_ADDED_TO_PO" | "ADDED_TO_PO" | "ADDED_TO_WAREHOUSE_REQUEST" | "REJECTED")[];
        };
        /**
         * @description The state to set.
         * @example CLOSED
         */
        RequisitionStateQuery: components["schemas"]["RequisitionState"];
        /**
         * @description Page size (at most 100).
         * @example 100
         */
        WarehouseLimit: number;
        /**
         * @description Field to order warehouse requests by (default `createdAt`).
         * @example createdAt
         */
        WarehouseRequestOrderBy: "createdAt" | "needByDateDay" | "id" | "state" | "identifier" | "updatedAt" | "createdById";
        /** @description Conditions on warehouse requests; see "Filters and pagination". */
        WarehouseRequestFilter: {
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
             * @description Matches when `jobId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId?: string;
            /**
             * @description Matches when `jobId` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId_not?: string;
            /** @description Matches when `jobId` is one of the listed values: repeat `filter[jobId_in][]=` or give one comma-separated value. */
            jobId_in?: string[];
            /** @description Matches when `jobId` is none of the listed values: repeat `filter[jobId_not_in][]=` or give one comma-separated value. */
            jobId_not_in?: string[];
            /**
             * @description Matches when `locationId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            locationId?: string;
            /**
             * @description Matches when `locationId` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            locationId_not?: string;
            /** @description Matches when `locationId` is one of the listed values: repeat `filter[locationId_in][]=` or give one comma-separated value. */
            locationId_in?: string[];
            /** @description Matches when `locationId` is none of the listed values: repeat `filter[locationId_not_in][]=` or give one comma-separated value. */
            locationId_not_in?: string[];
            /**
             * @description Matches when `identifier` equals the value.
             * @example J-1042
             */
            identifier?: string;
            /**
             * @description Matches when `identifier` does not equal the value.
             * @example J-1042
             */
            identifier_not?: string;
            /** @description Matches when `identifier` is one of the listed values: repeat `filter[identifier_in][]=` or give one comma-separated value. */
            identifier_in?: string[];
            /** @description Matches when `identifier` is none of the listed values: repeat `filter[identifier_not_in][]=` or give one comma-separated value. */
            identifier_not_in?: string[];
            /**
             * @description Matches when `identifier` is less than the value.
             * @example J-1042
             */
            identifier_lt?: string;
            /**
             * @description Matches when `identifier` is less than or equal to the value.
             * @example J-1042
             */
            identifier_lte?: string;
            /**
             * @description Matches when `identifier` is greater than the value.
             * @example J-1042
             */
            identifier_gt?: string;
            /**
             * @description Matches when `identifier` is greater than or equal to the value.
             * @example J-1042
             */
            identifier_gte?: string;
            /**
             * @description Matches when `identifier` contains (case-insensitive) the value.
             * @example J-1042
             */
            identifier_contains?: string;
            /**
             * @description Matches when `identifier` starts with (case-insensitive) the value.
             * @example J-1042
             */
            identifier_starts_with?: string;
            /**
             * @description Matches when `identifier` ends with (case-insensitive) the value.
             * @example J-1042
             */
            identifier_ends_with?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example ACKNOWLEDGED
             * @enum {string}
             */
            state?: "ACKNOWLEDGED" | "DRAFT" | "SENT";
            /**
             * @description Matches when `state` does not equal the value.
             * @example ACKNOWLEDGED
             * @enum {string}
             */
            state_not?: "ACKNOWLEDGED" | "DRAFT" | "SENT";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("ACKNOWLEDGED" | "DRAFT" | "SENT")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("ACKNOWLEDGED" | "DRAFT" | "SENT")[];
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
            /**
             * @description Matches when `createdById` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            createdById?: string;
            /**
             * @description Matches when `createdById` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            createdById_not?: string;
            /** @description Matches when `createdById` is one of the listed values: repeat `filter[createdById_in][]=` or give one comma-separated value. */
            createdById_in?: string[];
            /** @description Matches when `createdById` is none of the listed values: repeat `filter[createdById_not_in][]=` or give one comma-separated value. */
            createdById_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_not?: string;
            /** @description Matches when `needByDateDay` is one of the listed values: repeat `filter[needByDateDay_in][]=` or give one comma-separated value. */
            needByDateDay_in?: string[];
            /** @description Matches when `needByDateDay` is none of the listed values: repeat `filter[needByDateDay_not_in][]=` or give one comma-separated value. */
            needByDateDay_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDateDay` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDateDay_gte?: string;
        };
        /**
         * @description The warehouse request's ID.
         * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
         */
        WarehouseRequestId: string;
        /**
         * @description Field to order warehouse request items by (default `lineNumber`).
         * @example lineNumber
         */
        WarehouseRequestItemOrderBy: "createdAt" | "createdById" | "id" | "state" | "updatedAt" | "lineNumber" | "sku" | "upc" | "mpn" | "quantity" | "pickedQuantity";
        /** @description Conditions on warehouse request items; see "Filters and pagination". */
        WarehouseRequestItemFilter: {
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
             * @description Matches when `createdById` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            createdById?: string;
            /**
             * @description Matches when `createdById` does not equal the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            createdById_not?: string;
            /** @description Matches when `createdById` is one of the listed values: repeat `filter[createdById_in][]=` or give one comma-separated value. */
            createdById_in?: string[];
            /** @description Matches when `createdById` is none of the listed values: repeat `filter[createdById_not_in][]=` or give one comma-separated value. */
            createdById_not_in?: string[];
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
             * @description Matches when `state` equals the value.
             * @example CANCELLED
             * @enum {string}
             */
            state?: "CANCELLED" | "DRAFT" | "PARTIAL_PICK" | "PICKED" | "REQUESTED" | "SHIPPED" | "UNAVAILABLE";
            /**
             * @description Matches when `state` does not equal the value.
             * @example CANCELLED
             * @enum {string}
             */
            state_not?: "CANCELLED" | "DRAFT" | "PARTIAL_PICK" | "PICKED" | "REQUESTED" | "SHIPPED" | "UNAVAILABLE";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("CANCELLED" | "DRAFT" | "PARTIAL_PICK" | "PICKED" | "REQUESTED" | "SHIPPED" | "UNAVAILABLE")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("CANCELLED" | "DRAFT" | "PARTIAL_PICK" | "PICKED" | "REQUESTED" | "SHIPPED" | "UNAVAILABLE")[];
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
            /**
             * Format: int32
             * @description Matches when `lineNumber` equals the value.
             * @example 1
             */
            lineNumber?: number;
            /**
             * Format: int32
             * @description Matches when `lineNumber` does not equal the value.
             * @example 1
             */
            lineNumber_not?: number;
            /** @description Matches when `lineNumber` is one of the listed values: repeat `filter[lineNumber_in][]=` or give one comma-separated value. */
            lineNumber_in?: number[];
            /** @description Matches when `lineNumber` is none of the listed values: repeat `filter[lineNumber_not_in][]=` or give one comma-separated value. */
            lineNumber_not_in?: number[];
            /**
             * Format: int32
             * @description Matches when `lineNumber` is less than the value.
             * @example 1
             */
            lineNumber_lt?: number;
            /**
             * Format: int32
             * @description Matches when `lineNumber` is less than or equal to the value.
             * @example 1
             */
            lineNumber_lte?: number;
            /**
             * Format: int32
             * @description Matches when `lineNumber` is greater than the value.
             * @example 1
             */
            lineNumber_gt?: number;
            /**
             * Format: int32
             * @description Matches when `lineNumber` is greater than or equal to the value.
             * @example 1
             */
            lineNumber_gte?: number;
            /**
             * @description Matches when `sku` equals the value.
             * @example J-1042
             */
            sku?: string;
            /**
             * @description Matches when `sku` does not equal the value.
             * @example J-1042
             */
            sku_not?: string;
            /** @description Matches when `sku` is one of the listed values: repeat `filter[sku_in][]=` or give one comma-separated value. */
            sku_in?: string[];
            /** @description Matches when `sku` is none of the listed values: repeat `filter[sku_not_in][]=` or give one comma-separated value. */
            sku_not_in?: string[];
            /**
             * @description Matches when `sku` is less than the value.
             * @example J-1042
             */
            sku_lt?: string;
            /**
             * @description Matches when `sku` is less than or equal to the value.
             * @example J-1042
             */
            sku_lte?: string;
            /**
             * @description Matches when `sku` is greater than the value.
             * @example J-1042
             */
            sku_gt?: string;
            /**
             * @description Matches when `sku` is greater than or equal to the value.
             * @example J-1042
             */
            sku_gte?: string;
            /**
             * @description Matches when `sku` contains (case-insensitive) the value.
             * @example J-1042
             */
            sku_contains?: string;
            /**
             * @description Matches when `sku` starts with (case-insensitive) the value.
             * @example J-1042
             */
            sku_starts_with?: string;
            /**
             * @description Matches when `sku` ends with (case-insensitive) the value.
             * @example J-1042
             */
            sku_ends_with?: string;
            /**
             * @description Matches when `upc` equals the value.
             * @example J-1042
             */
            upc?: string;
            /**
             * @description Matches when `upc` does not equal the value.
             * @example J-1042
             */
            upc_not?: string;
            /** @description Matches when `upc` is one of the listed values: repeat `filter[upc_in][]=` or give one comma-separated value. */
            upc_in?: string[];
            /** @description Matches when `upc` is none of the listed values: repeat `filter[upc_not_in][]=` or give one comma-separated value. */
            upc_not_in?: string[];
            /**
             * @description Matches when `upc` is less than the value.
             * @example J-1042
             */
            upc_lt?: string;
            /**
             * @description Matches when `upc` is less than or equal to the value.
             * @example J-1042
             */
            upc_lte?: string;
            /**
             * @description Matches when `upc` is greater than the value.
             * @example J-1042
             */
            upc_gt?: string;
            /**
             * @description Matches when `upc` is greater than or equal to the value.
             * @example J-1042
             */
            upc_gte?: string;
            /**
             * @description Matches when `upc` contains (case-insensitive) the value.
             * @example J-1042
             */
            upc_contains?: string;
            /**
             * @description Matches when `upc` starts with (case-insensitive) the value.
             * @example J-1042
             */
            upc_starts_with?: string;
            /**
             * @description Matches when `upc` ends with (case-insensitive) the value.
             * @example J-1042
             */
            upc_ends_with?: string;
            /**
             * @description Matches when `mpn` equals the value.
             * @example J-1042
             */
            mpn?: string;
            /**
             * @description Matches when `mpn` does not equal the value.
             * @example J-1042
             */
            mpn_not?: string;
            /** @description Matches when `mpn` is one of the listed values: repeat `filter[mpn_in][]=` or give one comma-separated value. */
            mpn_in?: string[];
            /** @description Matches when `mpn` is none of the listed values: repeat `filter[mpn_not_in][]=` or give one comma-separated value. */
            mpn_not_in?: string[];
            /**
             * @description Matches when `mpn` is less than the value.
             * @example J-1042
             */
            mpn_lt?: string;
            /**
             * @description Matches when `mpn` is less than or equal to the value.
             * @example J-1042
             */
            mpn_lte?: string;
            /**
             * @description Matches when `mpn` is greater than the value.
             * @example J-1042
             */
            mpn_gt?: string;
            /**
             * @description Matches when `mpn` is greater than or equal to the value.
             * @example J-1042
             */
            mpn_gte?: string;
            /**
             * @description Matches when `mpn` contains (case-insensitive) the value.
             * @example J-1042
             */
            mpn_contains?: string;
            /**
             * @description Matches when `mpn` starts with (case-insensitive) the value.
             * @example J-1042
             */
            mpn_starts_with?: string;
            /**
             * @description Matches when `mpn` ends with (case-insensitive) the value.
             * @example J-1042
             */
            mpn_ends_with?: string;
            /**
             * @description Matches when `quantity` equals the value.
             * @example 10.5
             */
            quantity?: number;
            /**
             * @description Matches when `quantity` does not equal the value.
             * @example 10.5
             */
            quantity_not?: number;
            /** @description Matches when `quantity` is one of the listed values: repeat `filter[quantity_in][]=` or give one comma-separated value. */
            quantity_in?: number[];
            /** @description Matches when `quantity` is none of the listed values: repeat `filter[quantity_not_in][]=` or give one comma-separated value. */
            quantity_not_in?: number[];
            /**
             * @description Matches when `quantity` is less than the value.
             * @example 10.5
             */
            quantity_lt?: number;
            /**
             * @description Matches when `quantity` is less than or equal to the value.
             * @example 10.5
             */
            quantity_lte?: number;
            /**
             * @description Matches when `quantity` is greater than the value.
             * @example 10.5
             */
            quantity_gt?: number;
            /**
             * @description Matches when `quantity` is greater than or equal to the value.
             * @example 10.5
             */
            quantity_gte?: number;
            /**
             * @description Matches when `pickedQuantity` equals the value.
             * @example 10.5
             */
            pickedQuantity?: number;
            /**
             * @description Matches when `pickedQuantity` does not equal the value.
             * @example 10.5
             */
            pickedQuantity_not?: number;
            /** @description Matches when `pickedQuantity` is one of the listed values: repeat `filter[pickedQuantity_in][]=` or give one comma-separated value. */
            pickedQuantity_in?: number[];
            /** @description Matches when `pickedQuantity` is none of the listed values: repeat `filter[pickedQuantity_not_in][]=` or give one comma-separated value. */
            pickedQuantity_not_in?: number[];
            /**
             * @description Matches when `pickedQuantity` is less than the value.
             * @example 10.5
             */
            pickedQuantity_lt?: number;
            /**
             * @description Matches when `pickedQuantity` is less than or equal to the value.
             * @example 10.5
             */
            pickedQuantity_lte?: number;
            /**
             * @description Matches when `pickedQuantity` is greater than the value.
             * @example 10.5
             */
            pickedQuantity_gt?: number;
            /**
             * @description Matches when `pickedQuantity` is greater than or equal to the value.
             * @example 10.5
             */
            pickedQuantity_gte?: number;
        };
        /**
         * @description The warehouse request's ID.
         * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
         */
        WarehouseRequestIdCamel: string;
        /**
         * @description Field to order delivery receipts by (default `createdAt`).
         * @example createdAt
         */
        DeliveryReceiptOrderBy: "id" | "identifier" | "notes" | "createdAt" | "updatedAt" | "archivedAt" | "state";
        /**
         * @description Include soft-deleted objects (they carry `deletedAt`).
         * @example false
         */
        IncludeDeleted: boolean;
        /** @description Conditions on delivery receipts; see "Filters and pagination". */
        DeliveryReceiptFilter: {
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
             * @description Matches when `identifier` equals the value.
             * @example J-1042
             */
            identifier?: string;
            /**
             * @description Matches when `identifier` does not equal the value.
             * @example J-1042
             */
            identifier_not?: string;
            /** @description Matches when `identifier` is one of the listed values: repeat `filter[identifier_in][]=` or give one comma-separated value. */
            identifier_in?: string[];
            /** @description Matches when `identifier` is none of the listed values: repeat `filter[identifier_not_in][]=` or give one comma-separated value. */
            identifier_not_in?: string[];
            /**
             * @description Matches when `identifier` is less than the value.
             * @example J-1042
             */
            identifier_lt?: string;
            /**
             * @description Matches when `identifier` is less than or equal to the value.
             * @example J-1042
             */
            identifier_lte?: string;
            /**
             * @description Matches when `identifier` is greater than the value.
             * @example J-1042
             */
            identifier_gt?: string;
            /**
             * @description Matches when `identifier` is greater than or equal to the value.
             * @example J-1042
             */
            identifier_gte?: string;
            /**
             * @description Matches when `identifier` contains (case-insensitive) the value.
             * @example J-1042
             */
            identifier_contains?: string;
            /**
             * @description Matches when `identifier` starts with (case-insensitive) the value.
             * @example J-1042
             */
            identifier_starts_with?: string;
            /**
             * @description Matches when `identifier` ends with (case-insensitive) the value.
             * @example J-1042
             */
            identifier_ends_with?: string;
            /**
             * @description Matches when `notes` equals the value.
             * @example J-1042
             */
            notes?: string;
            /**
             * @description Matches when `notes` does not equal the value.
             * @example J-1042
             */
            notes_not?: string;
            /** @description Matches when `notes` is one of the listed values: repeat `filter[notes_in][]=` or give one comma-separated value. */
            notes_in?: string[];
            /** @description Matches when `notes` is none of the listed values: repeat `filter[notes_not_in][]=` or give one comma-separated value. */
            notes_not_in?: string[];
            /**
             * @description Matches when `notes` is less than the value.
             * @example J-1042
             */
            notes_lt?: string;
            /**
             * @description Matches when `notes` is less than or equal to the value.
             * @example J-1042
             */
            notes_lte?: string;
            /**
             * @description Matches when `notes` is greater than the value.
             * @example J-1042
             */
            notes_gt?: string;
            /**
             * @description Matches when `notes` is greater than or equal to the value.
             * @example J-1042
             */
            notes_gte?: string;
            /**
             * @description Matches when `notes` contains (case-insensitive) the value.
             * @example J-1042
             */
            notes_contains?: string;
            /**
             * @description Matches when `notes` starts with (case-insensitive) the value.
             * @example J-1042
             */
            notes_starts_with?: string;
            /**
             * @description Matches when `notes` ends with (case-insensitive) the value.
             * @example J-1042
             */
            notes_ends_with?: string;
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
            /**
             * Format: date-time
             * @description Matches when `archivedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            archivedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `archivedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            archivedAt_not?: string;
            /** @description Matches when `archivedAt` is one of the listed values: repeat `filter[archivedAt_in][]=` or give one comma-separated value. */
            archivedAt_in?: string[];
            /** @description Matches when `archivedAt` is none of the listed values: repeat `filter[archivedAt_not_in][]=` or give one comma-separated value. */
            archivedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `archivedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            archivedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `archivedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            archivedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `archivedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            archivedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `archivedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            archivedAt_gte?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example SUBMITTED
             * @enum {string}
             */
            state?: "SUBMITTED" | "DRAFT";
            /**
             * @description Matches when `state` does not equal the value.
             * @example SUBMITTED
             * @enum {string}
             */
            state_not?: "SUBMITTED" | "DRAFT";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("SUBMITTED" | "DRAFT")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("SUBMITTED" | "DRAFT")[];
            /** @description Matches when issueType (the issue kinds of the receipt; omitted: NO_ISSUES (only receipts without issues); ALL: every receipt; otherwise receipts having any listed kind) is one of the listed values: repeat `filter[issueType_in][]=` or give one comma-separated value. */
            issueType_in?: ("NO_ISSUES" | "MISSING" | "DAMAGED" | "WRONG_ITEM" | "BACKORDERED" | "ALL")[];
        };
        /**
         * @description The delivery receipt's ID.
         * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
         */
        DeliveryReceiptId: string;
        /**
         * @description Field to order delivery receipt items by (default `createdAt`).
         * @example createdAt
         */
        DeliveryReceiptItemOrderBy: "createdAt" | "id" | "updatedAt";
        /**
         * @description The order's ID.
         * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
         */
        DeliveryOrderId: string;
        /**
         * @description Field to order invoices by (default `createdAt`).
         * @example createdAt
         */
        InvoiceOrderBy: "approvedAt" | "createdAt" | "flaggedAt" | "id" | "invoiceDate" | "paidAt" | "rejectedAt" | "shipDate" | "updatedAt" | "voidedAt";
        /** @description Conditions on invoices; see "Filters and pagination". */
        InvoiceFilter: {
            /**
             * Format: date-time
             * @description Matches when `approvedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            approvedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `approvedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            approvedAt_not?: string;
            /** @description Matches when `approvedAt` is one of the listed values: repeat `filter[approvedAt_in][]=` or give one comma-separated value. */
            approvedAt_in?: string[];
            /** @description Matches when `approvedAt` is none of the listed values: repeat `filter[approvedAt_not_in][]=` or give one comma-separated value. */
            approvedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `approvedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            approvedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `approvedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            approvedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `approvedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            approvedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `approvedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            approvedAt_gte?: string;
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
             * @description Matches when `category` equals the value.
             * @example genContractor
             * @enum {string}
             */
            category?: "genContractor" | "material" | "miscellaneous" | "rentals";
            /**
             * @description Matches when `category` does not equal the value.
             * @example genContractor
             * @enum {string}
             */
            category_not?: "genContractor" | "material" | "miscellaneous" | "rentals";
            /** @description Matches when `category` is one of the listed values: repeat `filter[category_in][]=` or give one comma-separated value. */
            category_in?: ("genContractor" | "material" | "miscellaneous" | "rentals")[];
            /** @description Matches when `category` is none of the listed values: repeat `filter[category_not_in][]=` or give one comma-separated value. */
            category_not_in?: ("genContractor" | "material" | "miscellaneous" | "rentals")[];
            /**
             * @description Matches when `flagged` equals the value.
             * @example true
             */
            flagged?: boolean;
            /**
             * @description Matches when `flagged` does not equal the value.
             * @example true
             */
            flagged_not?: boolean;
            /**
             * Format: date-time
             * @description Matches when `flaggedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            flaggedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `flaggedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            flaggedAt_not?: string;
            /** @description Matches when `flaggedAt` is one of the listed values: repeat `filter[flaggedAt_in][]=` or give one comma-separated value. */
            flaggedAt_in?: string[];
            /** @description Matches when `flaggedAt` is none of the listed values: repeat `filter[flaggedAt_not_in][]=` or give one comma-separated value. */
            flaggedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `flaggedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            flaggedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `flaggedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            flaggedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `flaggedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            flaggedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `flaggedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            flaggedAt_gte?: string;
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
             * @description Matches when `invoiceDate` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            invoiceDate?: string;
            /**
             * Format: date-time
             * @description Matches when `invoiceDate` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            invoiceDate_not?: string;
            /** @description Matches when `invoiceDate` is one of the listed values: repeat `filter[invoiceDate_in][]=` or give one comma-separated value. */
            invoiceDate_in?: string[];
            /** @description Matches when `invoiceDate` is none of the listed values: repeat `filter[invoiceDate_not_in][]=` or give one comma-separated value. */
            invoiceDate_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `invoiceDate` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            invoiceDate_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `invoiceDate` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            invoiceDate_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `invoiceDate` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            invoiceDate_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `invoiceDate` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            invoiceDate_gte?: string;
            /**
             * @description Matches when `invoiceNumber` equals the value.
             * @example J-1042
             */
            invoiceNumber?: string;
            /**
             * @description Matches when `invoiceNumber` does not equal the value.
             * @example J-1042
             */
            invoiceNumber_not?: string;
            /** @description Matches when `invoiceNumber` is one of the listed values: repeat `filter[invoiceNumber_in][]=` or give one comma-separated value. */
            invoiceNumber_in?: string[];
            /** @description Matches when `invoiceNumber` is none of the listed values: repeat `filter[invoiceNumber_not_in][]=` or give one comma-separated value. */
            invoiceNumber_not_in?: string[];
            /**
             * @description Matches when `invoiceNumber` is less than the value.
             * @example J-1042
             */
            invoiceNumber_lt?: string;
            /**
             * @description Matches when `invoiceNumber` is less than or equal to the value.
             * @example J-1042
             */
            invoiceNumber_lte?: string;
            /**
             * @description Matches when `invoiceNumber` is greater than the value.
             * @example J-1042
             */
            invoiceNumber_gt?: string;
            /**
             * @description Matches when `invoiceNumber` is greater than or equal to the value.
             * @example J-1042
             */
            invoiceNumber_gte?: string;
            /**
             * @description Matches when `invoiceNumber` contains (case-insensitive) the value.
             * @example J-1042
             */
            invoiceNumber_contains?: string;
            /**
             * @description Matches when `invoiceNumber` starts with (case-insensitive) the value.
             * @example J-1042
             */
            invoiceNumber_starts_with?: string;
            /**
             * @description Matches when `invoiceNumber` ends with (case-insensitive) the value.
             * @example J-1042
             */
            invoiceNumber_ends_with?: string;
            /**
             * Format: date-time
             * @description Matches when `paidAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            paidAt?: string;
            /**
             * Format: date-time
             * @description Matches when `paidAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            paidAt_not?: string;
            /** @description Matches when `paidAt` is one of the listed values: repeat `filter[paidAt_in][]=` or give one comma-separated value. */
            paidAt_in?: string[];
            /** @description Matches when `paidAt` is none of the listed values: repeat `filter[paidAt_not_in][]=` or give one comma-separated value. */
            paidAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `paidAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            paidAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `paidAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            paidAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `paidAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            paidAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `paidAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            paidAt_gte?: string;
            /**
             * Format: date-time
             * @description Matches when `rejectedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            rejectedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `rejectedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            rejectedAt_not?: string;
            /** @description Matches when `rejectedAt` is one of the listed values: repeat `filter[rejectedAt_in][]=` or give one comma-separated value. */
            rejectedAt_in?: string[];
            /** @description Matches when `rejectedAt` is none of the listed values: repeat `filter[rejectedAt_not_in][]=` or give one comma-separated value. */
            rejectedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `rejectedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            rejectedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `rejectedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            rejectedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `rejectedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            rejectedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `rejectedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            rejectedAt_gte?: string;
            /**
             * Format: date-time
             * @description Matches when `shipDate` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            shipDate?: string;
            /**
             * Format: date-time
             * @description Matches when `shipDate` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            shipDate_not?: string;
            /** @description Matches when `shipDate` is one of the listed values: repeat `filter[shipDate_in][]=` or give one comma-separated value. */
            shipDate_in?: string[];
            /** @description Matches when `shipDate` is none of the listed values: repeat `filter[shipDate_not_in][]=` or give one comma-separated value. */
            shipDate_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `shipDate` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            shipDate_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `shipDate` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            shipDate_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `shipDate` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            shipDate_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `shipDate` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            shipDate_gte?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example APPROVED
             * @enum {string}
             */
            state?: "APPROVED" | "CLOSED" | "INBOX" | "PENDING";
            /**
             * @description Matches when `state` does not equal the value.
             * @example APPROVED
             * @enum {string}
             */
            state_not?: "APPROVED" | "CLOSED" | "INBOX" | "PENDING";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("APPROVED" | "CLOSED" | "INBOX" | "PENDING")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("APPROVED" | "CLOSED" | "INBOX" | "PENDING")[];
            /** @description Matches when `integrationState` is one of the listed values: repeat `filter[integrationState_in][]=` or give one comma-separated value. */
            integrationState_in?: ("NOT_LINKED" | "LINKING" | "LINKED" | "ERROR")[];
            /**
             * @description Matches when `taxExempt` equals the value.
             * @example true
             */
            taxExempt?: boolean;
            /**
             * @description Matches when `taxExempt` does not equal the value.
             * @example true
             */
            taxExempt_not?: boolean;
            /**
             * @description Matches when `type` equals the value.
             * @example INVOICE
             * @enum {string}
             */
            type?: "INVOICE" | "CREDIT_MEMO";
            /**
             * @description Matches when `type` does not equal the value.
             * @example INVOICE
             * @enum {string}
             */
            type_not?: "INVOICE" | "CREDIT_MEMO";
            /** @description Matches when `type` is one of the listed values: repeat `filter[type_in][]=` or give one comma-separated value. */
            type_in?: ("INVOICE" | "CREDIT_MEMO")[];
            /** @description Matches when `type` is none of the listed values: repeat `filter[type_not_in][]=` or give one comma-separated value. */
            type_not_in?: ("INVOICE" | "CREDIT_MEMO")[];
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
            /**
             * Format: date-time
             * @description Matches when `voidedAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            voidedAt?: string;
            /**
             * Format: date-time
             * @description Matches when `voidedAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            voidedAt_not?: string;
            /** @description Matches when `voidedAt` is one of the listed values: repeat `filter[voidedAt_in][]=` or give one comma-separated value. */
            voidedAt_in?: string[];
            /** @description Matches when `voidedAt` is none of the listed values: repeat `filter[voidedAt_not_in][]=` or give one comma-separated value. */
            voidedAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `voidedAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            voidedAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `voidedAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            voidedAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `voidedAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            voidedAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `voidedAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            voidedAt_gte?: string;
        };
        /**
         * @description The invoice's ID.
         * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
         */
        InvoiceId: string;
        /**
         * @description Field to order invoice items by (default `lineNumber`).
         * @example lineNumber
         */
        InvoiceItemOrderBy: "createdAt" | "id" | "lineNumber" | "updatedAt";
        /** @description Conditions on invoice items; see "Filters and pagination". */
        InvoiceItemFilter: {
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
             * @description Matches when `hasException` equals the value.
             * @example true
             */
            hasException?: boolean;
            /**
             * @description Matches when `hasException` does not equal the value.
             * @example true
             */
            hasException_not?: boolean;
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
             * @description Matches when `notes` equals the value.
             * @example J-1042
             */
            notes?: string;
            /**
             * @description Matches when `notes` does not equal the value.
             * @example J-1042
             */
            notes_not?: string;
            /** @description Matches when `notes` is one of the listed values: repeat `filter[notes_in][]=` or give one comma-separated value. */
            notes_in?: string[];
            /** @description Matches when `notes` is none of the listed values: repeat `filter[notes_not_in][]=` or give one comma-separated value. */
            notes_not_in?: string[];
            /**
             * @description Matches when `notes` is less than the value.
             * @example J-1042
             */
            notes_lt?: string;
            /**
             * @description Matches when `notes` is less than or equal to the value.
             * @example J-1042
             */
            notes_lte?: string;
            /**
             * @description Matches when `notes` is greater than the value.
             * @example J-1042
             */
            notes_gt?: string;
            /**
             * @description Matches when `notes` is greater than or equal to the value.
             * @example J-1042
             */
            notes_gte?: string;
            /**
             * @description Matches when `notes` contains (case-insensitive) the value.
             * @example J-1042
             */
            notes_contains?: string;
            /**
             * @description Matches when `notes` starts with (case-insensitive) the value.
             * @example J-1042
             */
            notes_starts_with?: string;
            /**
             * @description Matches when `notes` ends with (case-insensitive) the value.
             * @example J-1042
             */
            notes_ends_with?: string;
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
         * @description Page size (at most 2500).
         * @example 500
         */
        BulkLimit: number;
        /**
         * @description Field to order invoice items by (default `createdAt`).
         * @example createdAt
         */
        BulkInvoiceItemOrderBy: "createdAt" | "description" | "hasException" | "id" | "invoiceId" | "lineNumber" | "notes" | "updatedAt";
        /**
         * @description Sort direction of `orderBy` (default `DESC`).
         * @example DESC
         */
        BulkDirection: "ASC" | "DESC";
        /** @description Conditions on invoice items across invoices; see "Filters and pagination". */
        BulkInvoiceItemFilter: {
            /**
             * @description Matches when `invoiceId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            invoiceId?: string;
            /** @description Matches when `invoiceId` is one of the listed values: repeat `filter[invoiceId_in][]=` or give one comma-separated value. */
            invoiceId_in?: string[];
            /**
             * @description Matches when jobId (the job of the parent invoice) equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId?: string;
            /** @description Matches when jobId (the job of the parent invoice) is one of the listed values: repeat `filter[jobId_in][]=` or give one comma-separated value. */
            jobId_in?: string[];
            /**
             * @description Matches when vendorId (the vendor of the parent invoice) equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            vendorId?: string;
            /** @description Matches when vendorId (the vendor of the parent invoice) is one of the listed values: repeat `filter[vendorId_in][]=` or give one comma-separated value. */
            vendorId_in?: string[];
            /**
             * @description Matches when `hasException` equals the value.
             * @example true
             */
            hasException?: boolean;
            /**
             * @description Matches when `hasException` does not equal the value.
             * @example true
             */
            hasException_not?: boolean;
        };
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
    listRequisitions: {
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
                 * @description Field to order requisitions by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["RequisitionOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on requisitions; see "Filters and pagination". */
                filter?: components["parameters"]["RequisitionFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of requisitions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *         "createdAt": "2026-11-02T14:05:31.000Z",
                     *         "updatedAt": "2026-11-03T09:12:44.000Z",
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "identifier": "REQ-1042-0007",
                     *         "state": "PARTIALLY_FULFILLED",
                     *         "orderingAgentId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "notes": "Deliver to the north gate; forklift on site.",
                     *         "deletedAt": null,
                     *         "deletedById": null,
                     *         "deliveryLocationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "manuallyClosedAt": null,
                     *         "needByDateCategory": "DATE",
                     *         "needByDateDay": "2026-11-10T00:00:00.000Z",
                     *         "needByWindow": "Morning (7am - 11am)",
                     *         "sentAt": "2026-11-02T14:20:00.000Z",
                     *         "scheduledAt": null,
                     *         "title": "Level 2 rough-in copper",
                     *         "vendorContactId": null
                     *       },
                     *       {
                     *         "id": "8b7a6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d",
                     *         "createdAt": "2026-11-04T07:45:00.000Z",
                     *         "updatedAt": "2026-11-04T07:45:00.000Z",
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "updatedById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "identifier": "REQ-1042-0008",
                     *         "state": "OPEN",
                     *         "orderingAgentId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "notes": null,
                     *         "deletedAt": null,
                     *         "deletedById": null,
                     *         "deliveryLocationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "manuallyClosedAt": null,
                     *         "needByDateCategory": "ASAP",
                     *         "needByDateDay": null,
                     *         "needByWindow": "Anytime (7am - 5pm)",
                     *         "sentAt": "2026-11-04T07:46:10.000Z",
                     *         "scheduledAt": null,
                     *         "title": "Stud pack for east wing framing",
                     *         "vendorContactId": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Requisition"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getRequisition: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The requisition's ID.
                 * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
                 */
                id: components["parameters"]["RequisitionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The requisition. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *       "createdAt": "2026-11-02T14:05:31.000Z",
                     *       "updatedAt": "2026-11-03T09:12:44.000Z",
                     *       "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *       "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *       "identifier": "REQ-1042-0007",
                     *       "state": "PARTIALLY_FULFILLED",
                     *       "orderingAgentId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "notes": "Deliver to the north gate; forklift on site.",
                     *       "deletedAt": null,
                     *       "deletedById": null,
                     *       "deliveryLocationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "manuallyClosedAt": null,
                     *       "needByDateCategory": "DATE",
                     *       "needByDateDay": "2026-11-10T00:00:00.000Z",
                     *       "needByWindow": "Morning (7am - 11am)",
                     *       "sentAt": "2026-11-02T14:20:00.000Z",
                     *       "scheduledAt": null,
                     *       "title": "Level 2 rough-in copper",
                     *       "vendorContactId": null
                     *     }
                     */
                    "application/json": components["schemas"]["Requisition"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listRequisitionItems: {
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
                 * @description Field to order requisition items by (default `lineNumber`).
                 * @example lineNumber
                 */
                orderBy?: components["parameters"]["RequisitionItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on requisition items; see "Filters and pagination". */
                filter?: components["parameters"]["RequisitionItemFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The requisition's ID.
                 * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
                 */
                id: components["parameters"]["RequisitionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the requisition's items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                     *         "createdAt": "2026-11-02T14:05:31.000Z",
                     *         "updatedAt": "2026-11-03T09:12:44.000Z",
                     *         "allowSubstitution": true,
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "lineItemId": "e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "purchaseOrderId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "requisitionId": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *         "description": "3/4 in. Type L copper pipe, 20 ft",
                     *         "lineNumber": 1,
                     *         "manufacturerPartNumber": "LH04020",
                     *         "notes": null,
                     *         "quantity": 40,
                     *         "quantityDelivered": 24,
                     *         "rejectionMessage": null,
                     *         "rejectionReason": null,
                     *         "state": "ADDED_TO_PO",
                     *         "unitsOfMeasure": "EA",
                     *         "universalProductCode": "039923040209",
                     *         "integrationData": {
                     *           "erpLineRef": "PR-88123-1"
                     *         },
                     *         "catalogId": "CAT-CU-L-075-20",
                     *         "states": {
                     *           "AddedToPO": 40,
                     *           "Requested": 40,
                     *           "RejectedByPurchasing": 0,
                     *           "AddedToWarehouseRequest": 0,
                     *           "AcknowledgedByPurchasing": 40
                     *         }
                     *       },
                     *       {
                     *         "id": "1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e",
                     *         "createdAt": "2026-11-02T14:05:31.000Z",
                     *         "updatedAt": "2026-11-03T09:12:44.000Z",
                     *         "allowSubstitution": false,
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "lineItemId": null,
                     *         "purchaseOrderId": null,
                     *         "requisitionId": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *         "description": "3/4 in. copper 90 deg elbow",
                     *         "lineNumber": 2,
                     *         "manufacturerPartNumber": "W02030",
                     *         "notes": null,
                     *         "quantity": 60,
                     *         "quantityDelivered": 0,
                     *         "rejectionMessage": "Already on PO 1042-0031.",
                     *         "rejectionReason": "DUPLICATE",
                     *         "state": "REJECTED",
                     *         "unitsOfMeasure": "EA",
                     *         "universalProductCode": null,
                     *         "integrationData": {},
                     *         "catalogId": null,
                     *         "states": {
                     *           "AddedToPO": 0,
                     *           "Requested": 60,
                     *           "RejectedByPurchasing": 60,
                     *           "AddedToWarehouseRequest": 0,
                     *           "AcknowledgedByPurchasing": 0
                     *         }
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["RequisitionItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateRequisitionState: {
        parameters: {
            query: {
                /**
                 * @description The state to set.
                 * @example CLOSED
                 */
                state: components["parameters"]["RequisitionStateQuery"];
            };
            header?: never;
            path: {
                /**
                 * @description The requisition's ID.
                 * @example 6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c
                 */
                id: components["parameters"]["RequisitionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The updated requisition. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *       "createdAt": "2026-11-02T14:05:31.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *       "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *       "identifier": "REQ-1042-0007",
                     *       "state": "CLOSED",
                     *       "orderingAgentId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "notes": "Deliver to the north gate; forklift on site.",
                     *       "deletedAt": null,
                     *       "deletedById": null,
                     *       "deliveryLocationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "manuallyClosedAt": "2026-11-21T10:00:00.000Z",
                     *       "needByDateCategory": "DATE",
                     *       "needByDateDay": "2026-11-10T00:00:00.000Z",
                     *       "needByWindow": "Morning (7am - 11am)",
                     *       "sentAt": "2026-11-02T14:20:00.000Z",
                     *       "scheduledAt": null,
                     *       "title": "Level 2 rough-in copper",
                     *       "vendorContactId": null
                     *     }
                     */
                    "application/json": components["schemas"]["Requisition"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listWarehouseRequests: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 100).
                 * @example 100
                 */
                limit?: components["parameters"]["WarehouseLimit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order warehouse requests by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["WarehouseRequestOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on warehouse requests; see "Filters and pagination". */
                filter?: components["parameters"]["WarehouseRequestFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of warehouse requests. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *         "identifier": "WR-1042-0003",
                     *         "state": "SENT",
                     *         "needByDateDay": "2026-11-12T00:00:00.000Z",
                     *         "locationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-04T08:30:00.000Z",
                     *         "updatedAt": "2026-11-05T11:02:17.000Z"
                     *       },
                     *       {
                     *         "id": "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d",
                     *         "identifier": "WR-1042-0004",
                     *         "state": "DRAFT",
                     *         "needByDateDay": "2026-11-18T00:00:00.000Z",
                     *         "locationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-06T13:10:00.000Z",
                     *         "updatedAt": "2026-11-06T13:10:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["WarehouseRequest"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getWarehouseRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                id: components["parameters"]["WarehouseRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The warehouse request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *       "identifier": "WR-1042-0003",
                     *       "state": "SENT",
                     *       "needByDateDay": "2026-11-12T00:00:00.000Z",
                     *       "locationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *       "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *       "createdAt": "2026-11-04T08:30:00.000Z",
                     *       "updatedAt": "2026-11-05T11:02:17.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WarehouseRequest"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listWarehouseRequestItems: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 100).
                 * @example 100
                 */
                limit?: components["parameters"]["WarehouseLimit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order warehouse request items by (default `lineNumber`).
                 * @example lineNumber
                 */
                orderBy?: components["parameters"]["WarehouseRequestItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on warehouse request items; see "Filters and pagination". */
                filter?: components["parameters"]["WarehouseRequestItemFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                id: components["parameters"]["WarehouseRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the request's items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f",
                     *         "warehouseRequestId": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *         "lineNumber": 1,
                     *         "state": "PICKED",
                     *         "description": "2x4 SPF stud, 8 ft",
                     *         "quantity": 120,
                     *         "pickedQuantity": 120,
                     *         "uom": "EA",
                     *         "notes": "Straight stock only.",
                     *         "upc": "082011500089",
                     *         "sku": "LUM-SPF-2408",
                     *         "mpn": "SPF248",
                     *         "requisitionId": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-04T08:30:00.000Z",
                     *         "updatedAt": "2026-11-05T11:02:17.000Z"
                     *       },
                     *       {
                     *         "id": "9d0e1f2a-3b4c-4d5e-8f6a-7b8c9d0e1f2a",
                     *         "warehouseRequestId": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *         "lineNumber": 2,
                     *         "state": "PARTIAL_PICK",
                     *         "description": "1/2 in. drywall, 4x8 sheet",
                     *         "quantity": 80,
                     *         "pickedQuantity": 52,
                     *         "uom": "EA",
                     *         "notes": null,
                     *         "upc": null,
                     *         "sku": "DW-050-48",
                     *         "mpn": null,
                     *         "requisitionId": null,
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-04T08:30:00.000Z",
                     *         "updatedAt": "2026-11-05T11:02:17.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["WarehouseRequestItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    getWarehouseRequestLegacy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                id: components["parameters"]["WarehouseRequestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The warehouse request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *       "identifier": "WR-1042-0003",
                     *       "state": "SENT",
                     *       "needByDateDay": "2026-11-12T00:00:00.000Z",
                     *       "locationId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *       "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *       "createdAt": "2026-11-04T08:30:00.000Z",
                     *       "updatedAt": "2026-11-05T11:02:17.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["WarehouseRequest"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listWarehouseRequestItemsLegacy: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 100).
                 * @example 100
                 */
                limit?: components["parameters"]["WarehouseLimit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order warehouse request items by (default `lineNumber`).
                 * @example lineNumber
                 */
                orderBy?: components["parameters"]["WarehouseRequestItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on warehouse request items; see "Filters and pagination". */
                filter?: components["parameters"]["WarehouseRequestItemFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The warehouse request's ID.
                 * @example 5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c
                 */
                warehouseRequestId: components["parameters"]["WarehouseRequestIdCamel"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the request's items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f",
                     *         "warehouseRequestId": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *         "lineNumber": 1,
                     *         "state": "PICKED",
                     *         "description": "2x4 SPF stud, 8 ft",
                     *         "quantity": 120,
                     *         "pickedQuantity": 120,
                     *         "uom": "EA",
                     *         "notes": "Straight stock only.",
                     *         "upc": "082011500089",
                     *         "sku": "LUM-SPF-2408",
                     *         "mpn": "SPF248",
                     *         "requisitionId": "6e5d4c3b-2a19-4f8e-8d7c-6b5a4f3e2d1c",
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-04T08:30:00.000Z",
                     *         "updatedAt": "2026-11-05T11:02:17.000Z"
                     *       },
                     *       {
                     *         "id": "9d0e1f2a-3b4c-4d5e-8f6a-7b8c9d0e1f2a",
                     *         "warehouseRequestId": "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c",
                     *         "lineNumber": 2,
                     *         "state": "PARTIAL_PICK",
                     *         "description": "1/2 in. drywall, 4x8 sheet",
                     *         "quantity": 80,
                     *         "pickedQuantity": 52,
                     *         "uom": "EA",
                     *         "notes": null,
                     *         "upc": null,
                     *         "sku": "DW-050-48",
                     *         "mpn": null,
                     *         "requisitionId": null,
                     *         "createdById": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-04T08:30:00.000Z",
                     *         "updatedAt": "2026-11-05T11:02:17.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["WarehouseRequestItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listDeliveryReceipts: {
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
                 * @description Field to order delivery receipts by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["DeliveryReceiptOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /**
                 * @description Include soft-deleted objects (they carry `deletedAt`).
                 * @example false
                 */
                includeDeleted?: components["parameters"]["IncludeDeleted"];
                /** @description Conditions on delivery receipts; see "Filters and pagination". */
                filter?: components["parameters"]["DeliveryReceiptFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of delivery receipts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-9a2b-3c4d5e6f7a8b",
                     *         "identifier": "DR-1042-0013",
                     *         "purchaseOrder": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "notes": null,
                     *         "state": "SUBMITTED",
                     *         "issues": [
                     *           "NO_ISSUES"
                     *         ],
                     *         "warehouseRequest": null,
                     *         "notifiedContacts": [],
                     *         "deleted": false,
                     *         "createdAt": "2026-11-07T09:05:00.000Z",
                     *         "updatedAt": "2026-11-07T09:05:00.000Z",
                     *         "archivedAt": null,
                     *         "createdBy": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "release": null,
                     *         "integrationState": "NOT_LINKED",
                     *         "integrationMessage": null,
                     *         "integrationLastSync": null,
                     *         "attachments": []
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["DeliveryReceipt"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getDeliveryReceipt: {
        parameters: {
            query?: {
                /**
                 * @description Include soft-deleted objects (they carry `deletedAt`).
                 * @example false
                 */
                includeDeleted?: components["parameters"]["IncludeDeleted"];
            };
            header?: never;
            path: {
                /**
                 * @description The delivery receipt's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["DeliveryReceiptId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery receipt. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a",
                     *       "identifier": "DR-1042-0012",
                     *       "purchaseOrder": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "notes": "Two fittings boxes crushed; photos attached.",
                     *       "state": "SUBMITTED",
                     *       "issues": [
                     *         "DAMAGED"
                     *       ],
                     *       "warehouseRequest": null,
                     *       "notifiedContacts": [
                     *         "maria.chen@summitridge.example"
                     *       ],
                     *       "deleted": false,
                     *       "createdAt": "2026-11-06T15:40:02.000Z",
                     *       "updatedAt": "2026-11-06T15:52:40.000Z",
                     *       "archivedAt": null,
                     *       "createdBy": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *       "release": null,
                     *       "integrationState": "LINKED",
                     *       "integrationMessage": "Receipt posted to AP as RCV-20931.",
                     *       "integrationLastSync": "2026-11-06T16:00:00.000Z",
                     *       "attachments": [
                     *         {
                     *           "id": "4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e",
                     *           "name": "packing-slip-PO-1042-0031.pdf",
                     *           "url": "https://files.procurement.dev/7d1c2f5e/packing-slip-PO-1042-0031.pdf",
                     *           "createdAt": "2026-11-06T15:41:10.000Z",
                     *           "updatedAt": "2026-11-06T15:41:10.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryReceipt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listDeliveryReceiptItems: {
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
                 * @description Field to order delivery receipt items by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["DeliveryReceiptItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
            };
            header?: never;
            path: {
                /**
                 * @description The delivery receipt's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["DeliveryReceiptId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the receipt's items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
                     *         "deliveryReceiptId": "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a",
                     *         "description": "3/4 in. copper 90 deg elbow, box of 25",
                     *         "notes": "2 boxes crushed",
                     *         "quantity": 12,
                     *         "quantityReceivedThisReceipt": 12,
                     *         "unitsOfMeasure": "BOX",
                     *         "itemId": "e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "issues": {
                     *           "MISSING": 0,
                     *           "DAMAGED": 2,
                     *           "NO_ISSUES": 10,
                     *           "WRONG_ITEM": 0,
                     *           "BACKORDERED": 0
                     *         },
                     *         "createdAt": "2026-11-06T15:40:02.000Z",
                     *         "updatedAt": "2026-11-06T15:52:40.000Z"
                     *       },
                     *       {
                     *         "id": "c2d3e4f5-a6b7-4c8d-9e0f-1a2b3c4d5e6f",
                     *         "deliveryReceiptId": "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a",
                     *         "description": "3/4 in. Type L copper pipe, 20 ft",
                     *         "notes": null,
                     *         "quantity": 40,
                     *         "quantityReceivedThisReceipt": 24,
                     *         "unitsOfMeasure": "EA",
                     *         "itemId": "f6a7b8c9-d0e1-4f2a-8b3c-4d5e6f7a8b9c",
                     *         "issues": {
                     *           "MISSING": 0,
                     *           "DAMAGED": 0,
                     *           "NO_ISSUES": 24,
                     *           "WRONG_ITEM": 0,
                     *           "BACKORDERED": 0
                     *         },
                     *         "createdAt": "2026-11-06T15:40:02.000Z",
                     *         "updatedAt": "2026-11-06T15:52:40.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["DeliveryReceiptItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateDeliveryReceiptIntegrationState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The delivery receipt's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["DeliveryReceiptId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "integrationState": "LINKED",
                 *       "integrationMessage": "Receipt posted to AP as RCV-20931."
                 *     }
                 */
                "application/json": components["schemas"]["DeliveryReceiptIntegrationUpdate"];
            };
        };
        responses: {
            /** @description The delivery receipt. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a",
                     *       "identifier": "DR-1042-0012",
                     *       "purchaseOrder": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "notes": "Two fittings boxes crushed; photos attached.",
                     *       "state": "SUBMITTED",
                     *       "issues": [
                     *         "DAMAGED"
                     *       ],
                     *       "warehouseRequest": null,
                     *       "notifiedContacts": [
                     *         "maria.chen@summitridge.example"
                     *       ],
                     *       "deleted": false,
                     *       "createdAt": "2026-11-06T15:40:02.000Z",
                     *       "updatedAt": "2026-11-06T15:52:40.000Z",
                     *       "archivedAt": null,
                     *       "createdBy": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *       "release": null,
                     *       "integrationState": "LINKED",
                     *       "integrationMessage": "Receipt posted to AP as RCV-20931.",
                     *       "integrationLastSync": "2026-11-06T16:00:00.000Z",
                     *       "attachments": [
                     *         {
                     *           "id": "4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e",
                     *           "name": "packing-slip-PO-1042-0031.pdf",
                     *           "url": "https://files.procurement.dev/7d1c2f5e/packing-slip-PO-1042-0031.pdf",
                     *           "createdAt": "2026-11-06T15:41:10.000Z",
                     *           "updatedAt": "2026-11-06T15:41:10.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryReceipt"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listOrderDeliveryReceipts: {
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
                 * @description Field to order delivery receipts by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["DeliveryReceiptOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /**
                 * @description Include soft-deleted objects (they carry `deletedAt`).
                 * @example false
                 */
                includeDeleted?: components["parameters"]["IncludeDeleted"];
                /** @description Conditions on delivery receipts; see "Filters and pagination". */
                filter?: components["parameters"]["DeliveryReceiptFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
                 */
                orderId: components["parameters"]["DeliveryOrderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the order's delivery receipts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-9a2b-3c4d5e6f7a8b",
                     *         "identifier": "DR-1042-0013",
                     *         "purchaseOrder": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "notes": null,
                     *         "state": "SUBMITTED",
                     *         "issues": [
                     *           "NO_ISSUES"
                     *         ],
                     *         "warehouseRequest": null,
                     *         "notifiedContacts": [],
                     *         "deleted": false,
                     *         "createdAt": "2026-11-07T09:05:00.000Z",
                     *         "updatedAt": "2026-11-07T09:05:00.000Z",
                     *         "archivedAt": null,
                     *         "createdBy": "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a8b",
                     *         "release": null,
                     *         "integrationState": "NOT_LINKED",
                     *         "integrationMessage": null,
                     *         "integrationLastSync": null,
                     *         "attachments": []
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["DeliveryReceipt"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listInvoices: {
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
                 * @description Field to order invoices by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["InvoiceOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /**
                 * @description Include soft-deleted objects (they carry `deletedAt`).
                 * @example false
                 */
                includeDeleted?: components["parameters"]["IncludeDeleted"];
                /** @description Conditions on invoices; see "Filters and pagination". */
                filter?: components["parameters"]["InvoiceFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of invoices. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f",
                     *         "createdAt": "2026-11-07T10:15:00.000Z",
                     *         "updatedAt": "2026-11-08T09:00:00.000Z",
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "deletedAt": null,
                     *         "title": "Ferguson - copper rough-in, L2",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "vendorId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "orderId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "type": "INVOICE",
                     *         "approvedAt": "2026-11-08T09:00:00.000Z",
                     *         "approvedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "assignedAt": "2026-11-07T10:20:00.000Z",
                     *         "category": "material",
                     *         "dueDate": "2026-12-06T00:00:00.000Z",
                     *         "invoiceDate": "2026-11-06T00:00:00.000Z",
                     *         "shipDate": "2026-11-05T00:00:00.000Z",
                     *         "exceptions": [],
                     *         "flagged": false,
                     *         "flaggedAt": null,
                     *         "flaggedById": null,
                     *         "flagMessage": null,
                     *         "invoiceNumber": "S1029384.001",
                     *         "paidAt": null,
                     *         "paidById": null,
                     *         "payments": null,
                     *         "rejectedAt": null,
                     *         "rejectedById": null,
                     *         "rejectedReason": null,
                     *         "salesperson": "Dana Whitfield",
                     *         "shipVia": "Vendor truck",
                     *         "terms": "Net 30",
                     *         "shippingCostFloat": 45,
                     *         "state": "APPROVED",
                     *         "integrationState": "LINKED",
                     *         "integrationMessage": null,
                     *         "attachments": [
                     *           {
                     *             "id": "5b9a3d2e-0c8f-4f4b-9d6e-7a2c3b4d5e6f",
                     *             "name": "ferguson-S1029384.001.pdf",
                     *             "url": "https://files.procurement.dev/7d1c2f5e/ferguson-S1029384.001.pdf",
                     *             "createdAt": "2026-11-07T10:15:00.000Z",
                     *             "updatedAt": "2026-11-07T10:15:00.000Z"
                     *           }
                     *         ],
                     *         "subtotal": 2350,
                     *         "tax": 170.38,
                     *         "totalDue": 2565.38,
                     *         "taxExempt": false,
                     *         "voidedAt": null,
                     *         "voidedById": null
                     *       },
                     *       {
                     *         "id": "d8e9f0a1-b2c3-4d4e-8f5a-6b7c8d9e0f1a",
                     *         "createdAt": "2026-11-08T11:20:00.000Z",
                     *         "updatedAt": "2026-11-08T11:30:00.000Z",
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "deletedAt": null,
                     *         "title": "Sunbelt Rentals - scissor lift, Nov",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "vendorId": "3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a",
                     *         "orderId": null,
                     *         "type": "INVOICE",
                     *         "approvedAt": null,
                     *         "approvedById": null,
                     *         "assignedAt": null,
                     *         "category": "rentals",
                     *         "dueDate": "2026-12-01T00:00:00.000Z",
                     *         "invoiceDate": "2026-11-01T00:00:00.000Z",
                     *         "shipDate": null,
                     *         "exceptions": [
                     *           "orderId"
                     *         ],
                     *         "flagged": true,
                     *         "flaggedAt": "2026-11-08T11:30:00.000Z",
                     *         "flaggedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "flagMessage": "No PO on file for this rental.",
                     *         "invoiceNumber": "148820331-0001",
                     *         "paidAt": null,
                     *         "paidById": null,
                     *         "payments": null,
                     *         "rejectedAt": null,
                     *         "rejectedById": null,
                     *         "rejectedReason": null,
                     *         "salesperson": null,
                     *         "shipVia": null,
                     *         "terms": "Net 30",
                     *         "shippingCostFloat": null,
                     *         "state": "PENDING",
                     *         "integrationState": "NOT_LINKED",
                     *         "integrationMessage": null,
                     *         "attachments": [],
                     *         "subtotal": 1180,
                     *         "tax": 0,
                     *         "totalDue": 1180,
                     *         "taxExempt": true,
                     *         "voidedAt": null,
                     *         "voidedById": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Invoice"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    markInvoicesPaid: {
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
                 *       "ids": [
                 *         "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f"
                 *       ],
                 *       "userId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                 *     }
                 */
                "application/json": components["schemas"]["InvoicesPaid"];
            };
        };
        responses: {
            /** @description The updated invoices. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f",
                     *         "createdAt": "2026-11-07T10:15:00.000Z",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z",
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "deletedAt": null,
                     *         "title": "Ferguson - copper rough-in, L2",
                     *         "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *         "vendorId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "orderId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "type": "INVOICE",
                     *         "approvedAt": "2026-11-08T09:00:00.000Z",
                     *         "approvedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "assignedAt": "2026-11-07T10:20:00.000Z",
                     *         "category": "material",
                     *         "dueDate": "2026-12-06T00:00:00.000Z",
                     *         "invoiceDate": "2026-11-06T00:00:00.000Z",
                     *         "shipDate": "2026-11-05T00:00:00.000Z",
                     *         "exceptions": [],
                     *         "flagged": false,
                     *         "flaggedAt": null,
                     *         "flaggedById": null,
                     *         "flagMessage": null,
                     *         "invoiceNumber": "S1029384.001",
                     *         "paidAt": "2026-11-21T10:00:00.000Z",
                     *         "paidById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "payments": 2565.38,
                     *         "rejectedAt": null,
                     *         "rejectedById": null,
                     *         "rejectedReason": null,
                     *         "salesperson": "Dana Whitfield",
                     *         "shipVia": "Vendor truck",
                     *         "terms": "Net 30",
                     *         "shippingCostFloat": 45,
                     *         "state": "CLOSED",
                     *         "integrationState": "LINKED",
                     *         "integrationMessage": null,
                     *         "attachments": [
                     *           {
                     *             "id": "5b9a3d2e-0c8f-4f4b-9d6e-7a2c3b4d5e6f",
                     *             "name": "ferguson-S1029384.001.pdf",
                     *             "url": "https://files.procurement.dev/7d1c2f5e/ferguson-S1029384.001.pdf",
                     *             "createdAt": "2026-11-07T10:15:00.000Z",
                     *             "updatedAt": "2026-11-07T10:15:00.000Z"
                     *           }
                     *         ],
                     *         "subtotal": 2350,
                     *         "tax": 170.38,
                     *         "totalDue": 2565.38,
                     *         "taxExempt": false,
                     *         "voidedAt": null,
                     *         "voidedById": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Invoice"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    getInvoice: {
        parameters: {
            query?: {
                /**
                 * @description Include soft-deleted objects (they carry `deletedAt`).
                 * @example false
                 */
                includeDeleted?: components["parameters"]["IncludeDeleted"];
            };
            header?: never;
            path: {
                /**
                 * @description The invoice's ID.
                 * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
                 */
                id: components["parameters"]["InvoiceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoice. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f",
                     *       "createdAt": "2026-11-07T10:15:00.000Z",
                     *       "updatedAt": "2026-11-08T09:00:00.000Z",
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "deletedAt": null,
                     *       "title": "Ferguson - copper rough-in, L2",
                     *       "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *       "vendorId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "orderId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "type": "INVOICE",
                     *       "approvedAt": "2026-11-08T09:00:00.000Z",
                     *       "approvedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "assignedAt": "2026-11-07T10:20:00.000Z",
                     *       "category": "material",
                     *       "dueDate": "2026-12-06T00:00:00.000Z",
                     *       "invoiceDate": "2026-11-06T00:00:00.000Z",
                     *       "shipDate": "2026-11-05T00:00:00.000Z",
                     *       "exceptions": [],
                     *       "flagged": false,
                     *       "flaggedAt": null,
                     *       "flaggedById": null,
                     *       "flagMessage": null,
                     *       "invoiceNumber": "S1029384.001",
                     *       "paidAt": null,
                     *       "paidById": null,
                     *       "payments": null,
                     *       "rejectedAt": null,
                     *       "rejectedById": null,
                     *       "rejectedReason": null,
                     *       "salesperson": "Dana Whitfield",
                     *       "shipVia": "Vendor truck",
                     *       "terms": "Net 30",
                     *       "shippingCostFloat": 45,
                     *       "state": "APPROVED",
                     *       "integrationState": "LINKED",
                     *       "integrationMessage": null,
                     *       "attachments": [
                     *         {
                     *           "id": "5b9a3d2e-0c8f-4f4b-9d6e-7a2c3b4d5e6f",
                     *           "name": "ferguson-S1029384.001.pdf",
                     *           "url": "https://files.procurement.dev/7d1c2f5e/ferguson-S1029384.001.pdf",
                     *           "createdAt": "2026-11-07T10:15:00.000Z",
                     *           "updatedAt": "2026-11-07T10:15:00.000Z"
                     *         }
                     *       ],
                     *       "subtotal": 2350,
                     *       "tax": 170.38,
                     *       "totalDue": 2565.38,
                     *       "taxExempt": false,
                     *       "voidedAt": null,
                     *       "voidedById": null
                     *     }
                     */
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listInvoiceItems: {
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
                 * @description Field to order invoice items by (default `lineNumber`).
                 * @example lineNumber
                 */
                orderBy?: components["parameters"]["InvoiceItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on invoice items; see "Filters and pagination". */
                filter?: components["parameters"]["InvoiceItemFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The invoice's ID.
                 * @example c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f
                 */
                id: components["parameters"]["InvoiceId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the invoice's items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a",
                     *         "invoiceId": "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f",
                     *         "lineNumber": 1,
                     *         "createdAt": "2026-11-07T10:15:00.000Z",
                     *         "updatedAt": "2026-11-07T10:15:00.000Z",
                     *         "description": "3/4 in. Type L copper pipe, 20 ft",
                     *         "notes": null,
                     *         "shipQuantity": 40,
                     *         "unitPriceFloat": 58.75,
                     *         "extPriceFloat": 2350,
                     *         "unitsOfMeasure": "EA",
                     *         "taxCode": "TX-CA",
                     *         "taxRate": 0.0725,
                     *         "phaseCode": "15-100",
                     *         "costCategory": "M",
                     *         "hasException": false
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["InvoiceItem"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listAllInvoiceItems: {
        parameters: {
            query?: {
                /**
                 * @description Page size (at most 2500).
                 * @example 500
                 */
                limit?: components["parameters"]["BulkLimit"];
                /**
                 * @description Number of objects to skip before the page starts.
                 * @example 0
                 */
                offset?: components["parameters"]["Offset"];
                /**
                 * @description Field to order invoice items by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["BulkInvoiceItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy` (default `DESC`).
                 * @example DESC
                 */
                direction?: components["parameters"]["BulkDirection"];
                /** @description Conditions on invoice items across invoices; see "Filters and pagination". */
                filter?: components["parameters"]["BulkInvoiceItemFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of invoice items and the size of the whole set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "meta": {
                     *         "total": 2,
                     *         "limit": 500,
                     *         "offset": 0
                     *       },
                     *       "data": [
                     *         {
                     *           "id": "e3f4a5b6-c7d8-4e9f-8a0b-1c2d3e4f5a6b",
                     *           "invoiceId": "d8e9f0a1-b2c3-4d4e-8f5a-6b7c8d9e0f1a",
                     *           "lineNumber": 1,
                     *           "createdAt": "2026-11-08T11:20:00.000Z",
                     *           "updatedAt": "2026-11-08T11:20:00.000Z",
                     *           "description": "Scissor lift 26 ft, 4-week rental",
                     *           "notes": "No PO on file",
                     *           "shipQuantity": 1,
                     *           "unitPriceFloat": 1180,
                     *           "extPriceFloat": 1180,
                     *           "unitsOfMeasure": "MO",
                     *           "taxCode": null,
                     *           "taxRate": null,
                     *           "phaseCode": "01-500",
                     *           "costCategory": "E",
                     *           "hasException": true,
                     *           "manufacturerPartNumber": null,
                     *           "universalProductCode": null,
                     *           "extPriceFloatIncludingTax": 1180,
                     *           "extendedQuantity": 1,
                     *           "requestedUOM": "MO",
                     *           "pricingUOM": "MO",
                     *           "extendedUOM": "MO",
                     *           "phaseCodeCode": "01-500",
                     *           "costCategoryCode": "E",
                     *           "glCodeCode": "5400-RENT",
                     *           "taxCodeCode": null,
                     *           "costTypeCode": "EQ",
                     *           "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *           "vendorId": "3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a",
                     *           "itemCode": null,
                     *           "scaledUnitPrice": null,
                     *           "itemCodeText": null
                     *         },
                     *         {
                     *           "id": "d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a",
                     *           "invoiceId": "c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f",
                     *           "lineNumber": 1,
                     *           "createdAt": "2026-11-07T10:15:00.000Z",
                     *           "updatedAt": "2026-11-07T10:15:00.000Z",
                     *           "description": "3/4 in. Type L copper pipe, 20 ft",
                     *           "notes": null,
                     *           "shipQuantity": 40,
                     *           "unitPriceFloat": 58.75,
                     *           "extPriceFloat": 2350,
                     *           "unitsOfMeasure": "EA",
                     *           "taxCode": "TX-CA",
                     *           "taxRate": 0.0725,
                     *           "phaseCode": "15-100",
                     *           "costCategory": "M",
                     *           "hasException": false,
                     *           "manufacturerPartNumber": "LH04020",
                     *           "universalProductCode": "039923040209",
                     *           "extPriceFloatIncludingTax": 2520.38,
                     *           "extendedQuantity": 800,
                     *           "requestedUOM": "EA",
                     *           "pricingUOM": "EA",
                     *           "extendedUOM": "FT",
                     *           "phaseCodeCode": "15-100",
                     *           "costCategoryCode": "M",
                     *           "glCodeCode": "5100-MAT",
                     *           "taxCodeCode": "TX-CA",
                     *           "costTypeCode": "MAT",
                     *           "jobId": "7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42",
                     *           "vendorId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *           "itemCode": {
                     *             "id": "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9",
                     *             "code": "CU-L-075",
                     *             "description": "Copper pipe type L 3/4 in."
                     *           },
                     *           "scaledUnitPrice": 2.9375,
                     *           "itemCodeText": "CU-L-075"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["InvoiceItemPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
}
