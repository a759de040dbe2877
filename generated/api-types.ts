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
    "/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List orders
         * @description Lists the organization's purchase orders (deleted orders are never listed), ordered by `createdAt` unless `orderBy` says otherwise. Each order carries its `glCode` (id, code), `taxCode` (id, code, taxPercent) and `attachments` with their files. `integrationState` is filtered with the list form only: `filter[integrationState_in][]=OUT_OF_SYNC&filter[integrationState_in][]=NOT_LINKED`.
         */
        get: operations["listOrders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: components["parameters"]["OrderPathId"];
            };
            cookie?: never;
        };
        /**
         * Get an order
         * @description Reads one purchase order by ID. A deleted order, or one of another organization, is answered with 404.
         */
        get: operations["getOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{id}/integrationState": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: components["parameters"]["OrderPathId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report an order's integration state
         * @description The integrating system reports how syncing the order went: `LINKING`, `LINKED` or `ERROR` (the other states are the service's own: a new order is `NOT_LINKED`, and any change made in the service to a `LINKED` order or its items moves it to `OUT_OF_SYNC`). `LINKED` sets `integrationLastSync` to the current time; `integrationLastSync` can never be written by a client. `integrationMessage` is required (non-empty) with `ERROR`; it is stored as given and cleared when omitted. The report does not change the order's `updatedAt`, so an integrator polling with `filter[updatedAt_gt]` is not sent its own acknowledgement back. Returns the order.
         */
        post: operations["updateOrderIntegrationState"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/orders/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: components["parameters"]["OrderPathId"];
            };
            cookie?: never;
        };
        /**
         * List an order's items
         * @description Lists the line items of one order, ordered by `lineNumber` ascending unless `orderBy` says otherwise. 404 when the order does not exist, is deleted or belongs to another organization.
         */
        get: operations["listOrderItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/order/buyerId/{buyerId}/purchaseOrderNumber/{purchaseOrderNumber}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The ID of the buyer organization that sent the order.
                 * @example 6e7f8a9b-0c1d-4e2f-8a3b-4c5d6e7f8a9b
                 */
                buyerId: components["parameters"]["BuyerId"];
                /**
                 * @description The purchase order number as the seller knows it; matched exactly, or else ignoring whitespace, `-`, `/`, `.`, `_`, `#` and case.
                 * @example J-1042-0007
                 */
                purchaseOrderNumber: components["parameters"]["PurchaseOrderNumber"];
            };
            cookie?: never;
        };
        /**
         * Find a buyer's order as its seller
         * @description For a seller organization (the caller): finds the order that the buyer organization `buyerId` sent to one of its vendors linked to the caller (a buyer's vendor record is linked to a seller organization by an administrator). The order is matched by its exact purchase order number or, when no order has it, by a fuzzy match that ignores whitespace, `-`, `/`, `.`, `_`, `#` and case (`J-1042/0007` finds `j1042 0007`). Only orders updated within the last 180 days are considered; draft orders (never sent to the vendor) and deleted orders are not. When several orders match, the exact match wins, then the most recently updated. An unknown buyer, a buyer whose vendors are not linked to the caller, and an old order are all answered with 404.
         */
        get: operations["findSellerOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Bulk list items across orders
         * @description Pulls line items across all orders of the organization (items of deleted orders excluded) with referenced records flattened to their codes (`phaseCodeCode`, `costCategoryCode`, `glCodeCode`, `taxCodeCode`, `costTypeCode`) and the parent order's `jobId` and `vendorId`. Defaults: `limit` 500 (at most 2500), `offset` 0, `orderBy` `createdAt`, `direction` `DESC`. `meta.total` counts every item matching the filters, whatever the page.
         */
        get: operations["listItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/items/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The item's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["ItemPathId"];
            };
            cookie?: never;
        };
        /**
         * Get an order item
         * @description Reads one order line item by ID, with its cost category, cost type, GL code, tax code, phase, sub-job and item code as nested objects. Items of deleted orders are answered with 404.
         */
        get: operations["getItem"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/order/{orderId}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                orderId: components["parameters"]["TaggedOrderId"];
            };
            cookie?: never;
        };
        /**
         * List an order's tags
         * @description Lists the tags on one order, ordered by `createdAt` unless `orderBy` says otherwise. 404 when the order does not exist, is deleted or belongs to another organization.
         */
        get: operations["listOrderTags"];
        put?: never;
        /**
         * Add tags to an order
         * @description Adds tags to an order. Each element names an existing tag by `id`, or by its exact, case-sensitive `title`; a title no tag has creates a new tag of type `ORDER` (with `color`, or none). An existing tag gets the given `color` when it differs (an omitted color leaves it as it is). Adding a tag the order already has is not an error. An `id` that matches no tag of the organization is a 404 naming it, and nothing is changed. Tags are not order fields: adding them does not change the order's `updatedAt` or integration state. Returns the tags, in the order given (each once).
         */
        post: operations["addOrderTags"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/order/{orderId}/tags/{tagId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                orderId: components["parameters"]["TaggedOrderId"];
                /**
                 * @description The tag's ID.
                 * @example 0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b
                 */
                tagId: components["parameters"]["TagId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a tag from an order
         * @description Removes the tag from the order; the tag itself is kept. 404 when the order or the tag does not exist in the organization, or the order does not have the tag. Returns `true`.
         */
        delete: operations["removeOrderTag"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List notifications
         * @description Lists the organization's notifications (for every recipient), ordered by `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listNotifications"];
        put?: never;
        /**
         * Create a notification
         * @description Notifies a user about the integration. `recipientId` must be a user of the organization (404 otherwise). The payload must fit the type: `integration_issue` needs `lastSyncTime` and may name an `order` (`{id}`, an order of the organization; 404 otherwise; without it the issue is a general one); `integration_issue_resolved` needs `resolvedAt`. A missing required payload key is a 400 naming it. The notification starts unread.
         */
        post: operations["createNotification"];
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update notifications
         * @description Applies `data` to every notification listed in `id_in` (in one transaction) and returns the IDs of the notifications updated; IDs that match no notification of the organization are skipped. `isRead` and `readAt` stay consistent: `isRead: true` without `readAt` stamps the current time (an already read notification keeps its time), `isRead: false` clears `readAt` (giving a `readAt` with it is a 400), a `readAt` alone marks it read at that time, `readAt: null` alone marks it unread. A new `type` or `payload` is checked against each notification as for creation.
         */
        patch: operations["updateNotifications"];
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
        /** @description A general-ledger code as orders and items show it (only its id and code); null when none. */
        GlCodeBrief: {
            /**
             * @description The GL code's ID.
             * @example 6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f
             */
            id: string;
            /**
             * @description The GL code.
             * @example 5100-MAT
             */
            code: string;
        } | null;
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
         * @description The mode the order originated in.
         *     - `ISSUE_PO`: issued to a single vendor
         *     - `PRE_ACKNOWLEDGED`: acknowledged by the vendor outside the service
         *     - `REQUEST_FOR_QUOTE`: sent to several vendors for quotes
         * @example ISSUE_PO
         * @enum {string}
         */
        OrderMode: "ISSUE_PO" | "PRE_ACKNOWLEDGED" | "REQUEST_FOR_QUOTE";
        /**
         * @description Delivery window on the needed-by day.
         *     - `ASAP`: as soon as possible
         *     - `AMEarly`: early morning
         *     - `AM`: morning
         *     - `PM`: afternoon
         *     - `PMLate`: late afternoon
         *     - `UNSPECIFIED`: no window given
         * @example AM
         * @enum {string}
         */
        NeedByWindow: "ASAP" | "AMEarly" | "AM" | "PM" | "PMLate" | "UNSPECIFIED";
        /**
         * @description The order's current state.
         *     - `DRAFT`: being written, not sent
         *     - `BID_ACTIVE`: request for quote out to vendors
         *     - `BID_CANCELLED`: request for quote cancelled
         *     - `FINALIZING`: sent to the vendor, not yet acknowledged
         *     - `ACTIVE`: acknowledged by the vendor
         *     - `CANCELLED`: cancelled
         *     - `COMPLETE`: complete
         * @example ACTIVE
         * @enum {string}
         */
        OrderState: "DRAFT" | "BID_ACTIVE" | "BID_CANCELLED" | "FINALIZING" | "ACTIVE" | "CANCELLED" | "COMPLETE";
        /** @description A tax code as orders and items show it (its id, code and rate); null when none. */
        TaxCodeBrief: {
            /**
             * @description The tax code's ID.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            id: string;
            /**
             * @description The tax code.
             * @example TX-CA
             */
            code: string;
            /**
             * Format: double
             * @description Resolved tax rate as a fraction (0.0725 means 7.25 %).
             * @example 0.0725
             */
            taxPercent: number;
        } | null;
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
        /** @description A file attached to an order. */
        OrderAttachment: {
            /**
             * @description Unique ID of the attachment.
             * @example 7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b
             */
            id: string;
            /**
             * Format: date-time
             * @description When the file was attached.
             * @example 2026-10-02T17:45:12.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-02T17:45:12.000Z
             */
            updatedAt: string;
            /**
             * @description What the attachment is (free text, e.g. quote or drawing number).
             * @example Vendor quote Q-88213
             */
            identifier: string | null;
            file: components["schemas"]["File"];
        };
        /**
         * @description The order type.
         *     - `HOLD_FOR_RELEASE`: hold-for-release order (also called a buyout); material is drawn through releases
         *     - `MAJOR`: lump-sum order
         *     - `STANDARD`: standard order
         * @example STANDARD
         * @enum {string}
         */
        OrderType: "HOLD_FOR_RELEASE" | "MAJOR" | "STANDARD";
        /**
         * @description How much of the order has been delivered.
         *     - `NO_DELIVERIES`: nothing received yet
         *     - `PARTIALLY_RECEIVED`: some items received
         *     - `FULLY_RECEIVED`: everything received
         * @example PARTIALLY_RECEIVED
         * @enum {string}
         */
        ReceivedState: "NO_DELIVERIES" | "PARTIALLY_RECEIVED" | "FULLY_RECEIVED";
        /** @description A purchase order (read-only through this API; orders are written in the application). */
        Order: {
            /**
             * @description Unique ID; the only unique identifier (draft or cancelled orders may share PO numbers).
             * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-10-01T15:30:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last time the order or one of its items changed in the service. Integration-state reports do not change it.
             * @example 2026-10-03T09:12:45.120Z
             */
            updatedAt: string;
            /**
             * @description The user who created the order; null when that user no longer exists.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string | null;
            /**
             * @description The user who last changed the order; null when unknown.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            updatedById: string | null;
            /**
             * @description The job the order is for.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId: string | null;
            /**
             * @description The vendor the order is sent to (null for a request for quote not yet awarded).
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            vendorId: string | null;
            /**
             * @description Where the material is delivered.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            deliveryLocationId: string | null;
            /**
             * @description Delivery instructions.
             * @example Deliver to the north gate; call the field contact 30 minutes ahead.
             */
            deliveryInstructions: string | null;
            /**
             * Format: double
             * @description Dollar discount subtracted from the order total.
             * @example 150
             */
            discount: number | null;
            /**
             * @description Field contact's name.
             * @example Marcus Reed
             */
            fieldContactName: string | null;
            /**
             * @description Field contact's phone.
             * @example +1 916 555 0142
             */
            fieldContactPhone: string | null;
            /**
             * @description Whether the order is flagged with an issue.
             * @example false
             */
            flagged: boolean;
            /**
             * Format: date-time
             * @description When the order was flagged.
             * @example null
             */
            flaggedAt: string | null;
            /**
             * @description Description of the issue the order is flagged with.
             * @example null
             */
            flagMessage: string | null;
            glCode: components["schemas"]["GlCodeBrief"];
            /**
             * Format: date-time
             * @description Read-only. The last time `integrationState` became `LINKED`; clients can never write it.
             * @example 2026-10-03T09:15:02.000Z
             */
            integrationLastSync: string | null;
            /**
             * @description Message about the last sync (explains the problem when `integrationState` is `ERROR`).
             * @example null
             */
            integrationMessage: string | null;
            integrationState: components["schemas"]["IntegrationState"];
            /**
             * @deprecated
             * @description Deprecated; true exactly when `type` is `MAJOR`.
             * @example false
             */
            isProjectPO: boolean;
            mode: components["schemas"]["OrderMode"];
            /**
             * Format: date-time
             * @description The day the material is needed by.
             * @example 2026-10-08T00:00:00.000Z
             */
            needByDateDay: string | null;
            needByWindow: components["schemas"]["NeedByWindow"];
            /**
             * @description Free notes.
             * @example Match submittal 03-300-004.
             */
            notes: string | null;
            /**
             * @description User-defined purchase order number (not unique).
             * @example J-1042-0007
             */
            purchaseOrderNumber: string | null;
            /**
             * Format: double
             * @description Dollar shipping cost added to the order total.
             * @example 85
             */
            shippingCost: number | null;
            state: components["schemas"]["OrderState"];
            taxCode: components["schemas"]["TaxCodeBrief"];
            /** @description Files attached to the order, oldest first. */
            attachments: components["schemas"]["OrderAttachment"][];
            /**
             * @description Whether the order is exempt from all line-item tax (null when never set; filters treat null as false).
             * @example false
             */
            taxExempt: boolean | null;
            type: components["schemas"]["OrderType"];
            receivedState: components["schemas"]["ReceivedState"];
            /**
             * @description Custom column value.
             * @example Level 2 east wing
             */
            customColumnValue: string | null;
            /**
             * @description Title.
             * @example Slab-on-grade rebar and mesh
             */
            title: string | null;
            /**
             * @description Off-rent date for rental equipment (as entered).
             * @example null
             */
            offRentDate: string | null;
            /**
             * @description Off-rent tracking number for rental equipment.
             * @example null
             */
            offRentNumber: string | null;
            /**
             * @description Distributor contact's name.
             * @example Dana Whitfield
             */
            distributorContactName: string | null;
            /**
             * @description Value of the organization's custom header field; null when the organization has not configured that field, when it is unset, and always for `REQUEST_FOR_QUOTE` orders.
             * @example CC-7781
             */
            headerCustomFieldValue: string | null;
        };
        /** @description What the integrating system reports about an order's sync. */
        OrderIntegrationStateUpdate: {
            /**
             * @description The state the integrating system reports (the other states are set by the service itself).
             *     - `LINKING`: the integrating system is writing the order
             *     - `LINKED`: the order is in sync; `integrationLastSync` is set to now
             *     - `ERROR`: the sync failed; `integrationMessage` is required
             * @example LINKED
             * @enum {string}
             */
            integrationState: "LINKING" | "LINKED" | "ERROR";
            /**
             * @description Message about the sync; required (non-empty) when `integrationState` is `ERROR`. Omitted or null clears the stored message.
             * @example null
             */
            integrationMessage?: string | null;
        };
        /** @description A coded record an item points at (phase, sub-job, cost category, cost type or item code) as items show it; null when none. */
        CodeBrief: {
            /**
             * @description The record's ID.
             * @example 2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b
             */
            id: string;
            /**
             * @description The record's code.
             * @example 03-300
             */
            code: string;
            /**
             * @description The record's description.
             * @example Cast-in-place concrete
             */
            description: string | null;
        } | null;
        /** @description A line item of a purchase order. */
        Item: {
            /**
             * @description Unique ID.
             * @example 4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a
             */
            id: string;
            /**
             * Format: int32
             * @description Position of the item within its order.
             * @example 1
             */
            lineNumber: number;
            /**
             * @description The order the item belongs to.
             * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
             */
            orderId: string;
            /**
             * @description Description.
             * @example #4 rebar, grade 60, 20 ft
             */
            description: string | null;
            /**
             * Format: double
             * @description Quantity ordered, in `unitsOfMeasure`.
             * @example 1200
             */
            quantity: number | null;
            /**
             * Format: double
             * @description Quantity after unit conversion, in `extendedUOM`.
             * @example 1200
             */
            extendedQuantity: number | null;
            /**
             * @description Unit of measure code (see units of measure; C prices per hundred, M per thousand).
             * @example LF
             */
            unitsOfMeasure: string | null;
            /**
             * @description ID of the unit-of-measure record, when the unit is one of the organization's units.
             * @example 6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c
             */
            unitsOfMeasureId: string | null;
            /**
             * @description Unit the item was requested in.
             * @example LF
             */
            requestedUOM: string | null;
            /**
             * @description Unit the vendor prices in.
             * @example C
             */
            pricingUOM: string | null;
            /**
             * @description Unit of `extendedQuantity`.
             * @example LF
             */
            extendedUOM: string | null;
            /**
             * Format: double
             * @description Unit price in dollars; null when not priced.
             * @example 86.5
             */
            unitPrice: number | null;
            /**
             * Format: double
             * @description Scaled unit price (when the UOM v2 feature is enabled).
             * @example 0.865
             */
            scaledUnitPrice: number | null;
            /**
             * Format: double
             * @description Discount in percent, up to 13 decimal places.
             * @example 2.5
             */
            unitDiscount: number | null;
            /**
             * Format: double
             * @description Extended price in dollars.
             * @example 1012.05
             */
            extPrice: number | null;
            /**
             * Format: double
             * @description Extended price including tax.
             * @example 1085.42
             */
            extPriceIncludingTax: number | null;
            /**
             * Format: date-time
             * @description When back-ordered quantity is expected.
             * @example null
             */
            backorderLeadTime: string | null;
            /**
             * Format: double
             * @description Quantity on backorder.
             * @example null
             */
            backorderQuantity: number | null;
            /**
             * Format: date-time
             * @description When the item is needed.
             * @example 2026-10-08T00:00:00.000Z
             */
            needByDate: string | null;
            /**
             * Format: date-time
             * @description When the vendor expects to deliver.
             * @example 2026-10-07T15:00:00.000Z
             */
            expectedDeliveryTime: string | null;
            /**
             * @description Manufacturer.
             * @example Nucor
             */
            manufacturer: string | null;
            /**
             * @description Manufacturer's part number.
             * @example RB4-G60-20
             */
            manufacturerPartNumber: string | null;
            /**
             * @description Universal product code.
             * @example 012345678905
             */
            universalProductCode: string | null;
            /**
             * @description Vendor's part number.
             * @example FRG-RB4-20
             */
            vendorPartNumber: string | null;
            /**
             * @description Notes.
             * @example Bundle by 50.
             */
            notes: string | null;
            /**
             * @description Custom column value.
             * @example null
             */
            customColumnValue: string | null;
            itemCode: components["schemas"]["CodeBrief"];
            /**
             * @description ID of the item code.
             * @example 8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e
             */
            itemCodeId: string | null;
            /**
             * @description Free-form item code text.
             * @example REBAR-4
             */
            itemCodeText: string | null;
            costCategory: components["schemas"]["CodeBrief"];
            costType: components["schemas"]["CodeBrief"];
            glCode: components["schemas"]["GlCodeBrief"];
            taxCode: components["schemas"]["TaxCodeBrief"];
            phase: components["schemas"]["CodeBrief"];
            subJob: components["schemas"]["CodeBrief"];
            /** @description The inventory ledger entry the item's cost is booked to (only its id; its other fields are not part of this API); null when none. */
            costsInventoryItemLedgerEntry: {
                /**
                 * @description The ledger entry's ID.
                 * @example 9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f
                 */
                id: string;
            } | null;
            /**
             * @description ID of the inventory ledger entry the item's cost is booked to.
             * @example null
             */
            costsInventoryItemLedgerEntryId: string | null;
            /** @description The inventory ledger the item is received into (only its id); null when none. */
            destinationInventoryItemLedger: {
                /**
                 * @description The ledger's ID.
                 * @example 0d1e2f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a
                 */
                id: string;
            } | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-10-01T15:30:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-01T15:30:00.000Z
             */
            updatedAt: string;
        };
        /** @description An order line item as the bulk item list returns it: referenced records flattened to their codes, plus the parent order's jobId and vendorId. */
        BulkItem: {
            /**
             * @description Unique ID.
             * @example 4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a
             */
            id: string;
            /**
             * Format: int32
             * @description Position of the item within its order.
             * @example 1
             */
            lineNumber: number;
            /**
             * @description The order the item belongs to.
             * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
             */
            orderId: string;
            /**
             * @description The job of the parent order.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId: string | null;
            /**
             * @description The vendor of the parent order.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            vendorId: string | null;
            /**
             * @description Description.
             * @example #4 rebar, grade 60, 20 ft
             */
            description: string | null;
            /**
             * Format: double
             * @description Quantity ordered, in `unitsOfMeasure`.
             * @example 1200
             */
            quantity: number | null;
            /**
             * Format: double
             * @description Quantity after unit conversion, in `extendedUOM`.
             * @example 1200
             */
            extendedQuantity: number | null;
            /**
             * @description Unit of measure code (see units of measure; C prices per hundred, M per thousand).
             * @example LF
             */
            unitsOfMeasure: string | null;
            /**
             * @description ID of the unit-of-measure record, when the unit is one of the organization's units.
             * @example 6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c
             */
            unitsOfMeasureId: string | null;
            /**
             * @description Unit the item was requested in.
             * @example LF
             */
            requestedUOM: string | null;
            /**
             * @description Unit the vendor prices in.
             * @example C
             */
            pricingUOM: string | null;
            /**
             * @description Unit of `extendedQuantity`.
             * @example LF
             */
            extendedUOM: string | null;
            /**
             * Format: double
             * @description Unit price in dollars; null when not priced.
             * @example 86.5
             */
            unitPrice: number | null;
            /**
             * Format: double
             * @description Scaled unit price (when the UOM v2 feature is enabled).
             * @example 0.865
             */
            scaledUnitPrice: number | null;
            /**
             * Format: double
             * @description Discount in percent, up to 13 decimal places.
             * @example 2.5
             */
            unitDiscount: number | null;
            /**
             * Format: double
             * @description Extended price in dollars.
             * @example 1012.05
             */
            extPrice: number | null;
            /**
             * Format: double
             * @description Extended price including tax.
             * @example 1085.42
             */
            extPriceIncludingTax: number | null;
            /**
             * Format: date-time
             * @description When back-ordered quantity is expected.
             * @example null
             */
            backorderLeadTime: string | null;
            /**
             * Format: double
             * @description Quantity on backorder.
             * @example null
             */
            backorderQuantity: number | null;
            /**
             * Format: date-time
             * @description When the item is needed.
             * @example 2026-10-08T00:00:00.000Z
             */
            needByDate: string | null;
            /**
             * Format: date-time
             * @description When the vendor expects to deliver.
             * @example 2026-10-07T15:00:00.000Z
             */
            expectedDeliveryTime: string | null;
            /**
             * @description Manufacturer.
             * @example Nucor
             */
            manufacturer: string | null;
            /**
             * @description Manufacturer's part number.
             * @example RB4-G60-20
             */
            manufacturerPartNumber: string | null;
            /**
             * @description Universal product code.
             * @example 012345678905
             */
            universalProductCode: string | null;
            /**
             * @description Vendor's part number.
             * @example FRG-RB4-20
             */
            vendorPartNumber: string | null;
            /**
             * @description Notes.
             * @example Bundle by 50.
             */
            notes: string | null;
            /**
             * @description Custom column value.
             * @example null
             */
            customColumnValue: string | null;
            itemCode: components["schemas"]["CodeBrief"];
            /**
             * @description ID of the item code.
             * @example 8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e
             */
            itemCodeId: string | null;
            /**
             * @description Free-form item code text.
             * @example REBAR-4
             */
            itemCodeText: string | null;
            /**
             * @description Code of the phase; null when none.
             * @example 03-300
             */
            phaseCodeCode: string | null;
            /**
             * @description Code of the cost category; null when none.
             * @example MAT
             */
            costCategoryCode: string | null;
            /**
             * @description Code of the GL code; null when none.
             * @example 5100-MAT
             */
            glCodeCode: string | null;
            /**
             * @description Code of the tax code; null when none.
             * @example TX-CA
             */
            taxCodeCode: string | null;
            /**
             * @description Code of the cost type; null when none.
             * @example M
             */
            costTypeCode: string | null;
            /**
             * @description ID of the inventory ledger entry the item's cost is booked to.
             * @example null
             */
            costsInventoryItemLedgerEntryId: string | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-10-01T15:30:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-10-01T15:30:00.000Z
             */
            updatedAt: string;
        };
        /** @description One page of the bulk item list. */
        BulkItemPage: {
            /** @description Where the page is in the whole filtered set. */
            meta: {
                /**
                 * Format: int32
                 * @description Number of items matching the filters (all pages together).
                 * @example 1873
                 */
                total: number;
                /**
                 * Format: int32
                 * @description The page size applied.
                 * @example 500
                 */
                limit: number;
                /**
                 * Format: int32
                 * @description The offset applied.
                 * @example 0
                 */
                offset: number;
            };
            /** @description The items of the page. */
            data: components["schemas"]["BulkItem"][];
        };
        /**
         * @description What a tag is used on.
         *     - `ORDER`: purchase orders
         *     - `INVENTORY_ITEM`: inventory items
         *     - `REQUISITION`: requisitions
         *     - `TOOL`: tools
         * @example ORDER
         * @enum {string}
         */
        TagType: "ORDER" | "INVENTORY_ITEM" | "REQUISITION" | "TOOL";
        /**
         * @description Color of a tag: one of the listed hex codes, including `#`; null when the tag has no color.
         *     - `#ff85c0`: magenta
         *     - `#ff7875`: red
         *     - `#ff9c6e`: volcano
         *     - `#ffc069`: orange
         *     - `#ffd666`: gold
         *     - `#d3f261`: lime
         *     - `#95de64`: green
         *     - `#5cdbd3`: cyan
         *     - `#69b1ff`: blue
         *     - `#85a5ff`: geekblue
         *     - `#b37feb`: purple
         *     - `#f0f0f0`: grey
         * @example #69b1ff
         * @enum {string|null}
         */
        Color: "#ff85c0" | "#ff7875" | "#ff9c6e" | "#ffc069" | "#ffd666" | "#d3f261" | "#95de64" | "#5cdbd3" | "#69b1ff" | "#85a5ff" | "#b37feb" | "#f0f0f0" | null;
        /** @description A tag that labels orders, inventory items, requisitions or tools. */
        Tag: {
            /**
             * @description Unique ID.
             * @example 2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f
             */
            id: string;
            /**
             * @description Name of the tag, unique in the organization (compared case-sensitively).
             * @example Long lead
             */
            title: string;
            type: components["schemas"]["TagType"];
            color: components["schemas"]["Color"];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-03-09T14:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-03-09T14:00:00.000Z
             */
            updatedAt: string;
        };
        /** @description A tag to add to an order. Without `id`, a tag is matched by its exact (case-sensitive) title, and created (type `ORDER`) when no tag has that title. */
        OrderTagInput: {
            /**
             * @description ID of an existing tag to add. When given, the tag is matched by it and `title` is ignored.
             * @example 0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b
             */
            id?: string;
            /**
             * @description The tag's title; matches an existing tag exactly (case-sensitive) or names the new one.
             * @example Long lead
             */
            title: string;
            color?: components["schemas"]["Color"];
        };
        /**
         * @description What the notification reports.
         *     - `integration_issue`: a sync problem with the integrated system; payload `lastSyncTime` and optionally `order`
         *     - `integration_issue_resolved`: a sync problem was resolved; payload `resolvedAt`
         * @example integration_issue
         * @enum {string}
         */
        NotificationType: "integration_issue" | "integration_issue_resolved";
        /**
         * @description The notification's data; which keys are required depends on the type.
         *     - `integration_issue`: `lastSyncTime` (required) and `order` (optional; without it the notification is a general integration issue)
         *     - `integration_issue_resolved`: `resolvedAt` (required)
         *     Other keys are kept as given.
         */
        NotificationPayload: {
            /**
             * Format: date-time
             * @description Time of the last contact with the integrated system (`integration_issue`).
             * @example 2026-11-20T22:10:00.000Z
             */
            lastSyncTime?: string;
            /** @description The order the issue is about (`integration_issue`); must be an order of the organization. */
            order?: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: string;
            };
            /**
             * Format: date-time
             * @description When the issue was resolved (`integration_issue_resolved`).
             * @example 2026-11-21T08:02:00.000Z
             */
            resolvedAt?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A notification addressed to a user about the integration. */
        Notification: {
            /**
             * @description Unique ID.
             * @example 5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d
             */
            id: string;
            type: components["schemas"]["NotificationType"];
            payload: components["schemas"]["NotificationPayload"];
            /**
             * @description The user the notification is addressed to.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            recipientId: string;
            /**
             * @description Whether the recipient has read it; always consistent with `readAt`.
             * @example false
             */
            isRead: boolean;
            /**
             * Format: date-time
             * @description When it was read; null while unread.
             * @example null
             */
            readAt: string | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-11-21T07:45:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-21T07:45:00.000Z
             */
            updatedAt: string;
        };
        /** @description A notification to create. */
        NotificationCreate: {
            /**
             * @description The user to notify; must be a user of the organization.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            recipientId: string;
            type: components["schemas"]["NotificationType"];
            payload: components["schemas"]["NotificationPayload"];
        };
        /** @description Changes applied to every listed notification. */
        NotificationUpdate: {
            /** @description IDs of the notifications to change (at most 1000). IDs that match no notification of the organization are skipped. */
            id_in: string[];
            /**
             * @description The changes. `isRead: true` without `readAt` stamps the current time (keeping an earlier read time);
             *     `isRead: false` clears `readAt`; a `readAt` alone marks the notification read at that time, and
             *     `readAt: null` alone marks it unread. A new `type` or `payload` must still fit together (see NotificationPayload).
             */
            data: {
                type?: components["schemas"]["NotificationType"];
                payload?: components["schemas"]["NotificationPayload"];
                /**
                 * @description Read (true) or unread (false).
                 * @example true
                 */
                isRead?: boolean;
                /**
                 * Format: date-time
                 * @description When it was read.
                 * @example 2026-11-21T09:00:00.000Z
                 */
                readAt?: string | null;
            };
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
         * @description Field to order orders by (default `createdAt`).
         * @example createdAt
         */
        OrderOrderBy: "createdAt" | "flaggedAt" | "id" | "needByDateDay" | "purchaseOrderNumber" | "updatedAt";
        /** @description Conditions on orders; see "Filters and pagination". `integrationState` accepts only the list form `integrationState_in`. */
        OrderFilter: {
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
            /** @description Matches when `integrationState` is one of the listed values: repeat `filter[integrationState_in][]=` or give one comma-separated value. */
            integrationState_in?: ("NOT_LINKED" | "LINKING" | "LINKED" | "OUT_OF_SYNC" | "ERROR")[];
            /**
             * @description Matches when `mode` equals the value.
             * @example ISSUE_PO
             * @enum {string}
             */
            mode?: "ISSUE_PO" | "PRE_ACKNOWLEDGED" | "REQUEST_FOR_QUOTE";
            /**
             * @description Matches when `mode` does not equal the value.
             * @example ISSUE_PO
             * @enum {string}
             */
            mode_not?: "ISSUE_PO" | "PRE_ACKNOWLEDGED" | "REQUEST_FOR_QUOTE";
            /** @description Matches when `mode` is one of the listed values: repeat `filter[mode_in][]=` or give one comma-separated value. */
            mode_in?: ("ISSUE_PO" | "PRE_ACKNOWLEDGED" | "REQUEST_FOR_QUOTE")[];
            /** @description Matches when `mode` is none of the listed values: repeat `filter[mode_not_in][]=` or give one comma-separated value. */
            mode_not_in?: ("ISSUE_PO" | "PRE_ACKNOWLEDGED" | "REQUEST_FOR_QUOTE")[];
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
             * @description Matches when `purchaseOrderNumber` equals the value.
             * @example J-1042
             */
            purchaseOrderNumber?: string;
            /**
             * @description Matches when `purchaseOrderNumber` does not equal the value.
             * @example J-1042
             */
            purchaseOrderNumber_not?: string;
            /** @description Matches when `purchaseOrderNumber` is one of the listed values: repeat `filter[purchaseOrderNumber_in][]=` or give one comma-separated value. */
            purchaseOrderNumber_in?: string[];
            /** @description Matches when `purchaseOrderNumber` is none of the listed values: repeat `filter[purchaseOrderNumber_not_in][]=` or give one comma-separated value. */
            purchaseOrderNumber_not_in?: string[];
            /**
             * @description Matches when `purchaseOrderNumber` is less than the value.
             * @example J-1042
             */
            purchaseOrderNumber_lt?: string;
            /**
             * @description Matches when `purchaseOrderNumber` is less than or equal to the value.
             * @example J-1042
             */
            purchaseOrderNumber_lte?: string;
            /**
             * @description Matches when `purchaseOrderNumber` is greater than the value.
             * @example J-1042
             */
            purchaseOrderNumber_gt?: string;
            /**
             * @description Matches when `purchaseOrderNumber` is greater than or equal to the value.
             * @example J-1042
             */
            purchaseOrderNumber_gte?: string;
            /**
             * @description Matches when `purchaseOrderNumber` contains (case-insensitive) the value.
             * @example J-1042
             */
            purchaseOrderNumber_contains?: string;
            /**
             * @description Matches when `purchaseOrderNumber` starts with (case-insensitive) the value.
             * @example J-1042
             */
            purchaseOrderNumber_starts_with?: string;
            /**
             * @description Matches when `purchaseOrderNumber` ends with (case-insensitive) the value.
             * @example J-1042
             */
            purchaseOrderNumber_ends_with?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example DRAFT
             * @enum {string}
             */
            state?: "DRAFT" | "BID_ACTIVE" | "BID_CANCELLED" | "FINALIZING" | "ACTIVE" | "CANCELLED" | "COMPLETE";
            /**
             * @description Matches when `state` does not equal the value.
             * @example DRAFT
             * @enum {string}
             */
            state_not?: "DRAFT" | "BID_ACTIVE" | "BID_CANCELLED" | "FINALIZING" | "ACTIVE" | "CANCELLED" | "COMPLETE";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("DRAFT" | "BID_ACTIVE" | "BID_CANCELLED" | "FINALIZING" | "ACTIVE" | "CANCELLED" | "COMPLETE")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("DRAFT" | "BID_ACTIVE" | "BID_CANCELLED" | "FINALIZING" | "ACTIVE" | "CANCELLED" | "COMPLETE")[];
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
             * @example HOLD_FOR_RELEASE
             * @enum {string}
             */
            type?: "HOLD_FOR_RELEASE" | "MAJOR" | "STANDARD";
            /**
             * @description Matches when `type` does not equal the value.
             * @example HOLD_FOR_RELEASE
             * @enum {string}
             */
            type_not?: "HOLD_FOR_RELEASE" | "MAJOR" | "STANDARD";
            /** @description Matches when `type` is one of the listed values: repeat `filter[type_in][]=` or give one comma-separated value. */
            type_in?: ("HOLD_FOR_RELEASE" | "MAJOR" | "STANDARD")[];
            /** @description Matches when `type` is none of the listed values: repeat `filter[type_not_in][]=` or give one comma-separated value. */
            type_not_in?: ("HOLD_FOR_RELEASE" | "MAJOR" | "STANDARD")[];
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
         * @description The order's ID.
         * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
         */
        OrderPathId: string;
        /**
         * @description Field to order the order's items by (default `lineNumber`).
         * @example lineNumber
         */
        ItemOrderBy: "backorderLeadTime" | "createdAt" | "id" | "lineNumber" | "needByDate" | "universalProductCode" | "updatedAt";
        /** @description Conditions on the order's items; see "Filters and pagination". */
        ItemFilter: {
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_not?: string;
            /** @description Matches when `backorderLeadTime` is one of the listed values: repeat `filter[backorderLeadTime_in][]=` or give one comma-separated value. */
            backorderLeadTime_in?: string[];
            /** @description Matches when `backorderLeadTime` is none of the listed values: repeat `filter[backorderLeadTime_not_in][]=` or give one comma-separated value. */
            backorderLeadTime_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_gte?: string;
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
             * @description Matches when `needByDate` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_not?: string;
            /** @description Matches when `needByDate` is one of the listed values: repeat `filter[needByDate_in][]=` or give one comma-separated value. */
            needByDate_in?: string[];
            /** @description Matches when `needByDate` is none of the listed values: repeat `filter[needByDate_not_in][]=` or give one comma-separated value. */
            needByDate_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `needByDate` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_gte?: string;
            /**
             * @description Matches when `universalProductCode` equals the value.
             * @example J-1042
             */
            universalProductCode?: string;
            /**
             * @description Matches when `universalProductCode` does not equal the value.
             * @example J-1042
             */
            universalProductCode_not?: string;
            /** @description Matches when `universalProductCode` is one of the listed values: repeat `filter[universalProductCode_in][]=` or give one comma-separated value. */
            universalProductCode_in?: string[];
            /** @description Matches when `universalProductCode` is none of the listed values: repeat `filter[universalProductCode_not_in][]=` or give one comma-separated value. */
            universalProductCode_not_in?: string[];
            /**
             * @description Matches when `universalProductCode` is less than the value.
             * @example J-1042
             */
            universalProductCode_lt?: string;
            /**
             * @description Matches when `universalProductCode` is less than or equal to the value.
             * @example J-1042
             */
            universalProductCode_lte?: string;
            /**
             * @description Matches when `universalProductCode` is greater than the value.
             * @example J-1042
             */
            universalProductCode_gt?: string;
            /**
             * @description Matches when `universalProductCode` is greater than or equal to the value.
             * @example J-1042
             */
            universalProductCode_gte?: string;
            /**
             * @description Matches when `universalProductCode` contains (case-insensitive) the value.
             * @example J-1042
             */
            universalProductCode_contains?: string;
            /**
             * @description Matches when `universalProductCode` starts with (case-insensitive) the value.
             * @example J-1042
             */
            universalProductCode_starts_with?: string;
            /**
             * @description Matches when `universalProductCode` ends with (case-insensitive) the value.
             * @example J-1042
             */
            universalProductCode_ends_with?: string;
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
             * @description Matches when `vendorPartNumber` equals the value.
             * @example J-1042
             */
            vendorPartNumber?: string;
            /**
             * @description Matches when `vendorPartNumber` does not equal the value.
             * @example J-1042
             */
            vendorPartNumber_not?: string;
            /** @description Matches when `vendorPartNumber` is one of the listed values: repeat `filter[vendorPartNumber_in][]=` or give one comma-separated value. */
            vendorPartNumber_in?: string[];
            /** @description Matches when `vendorPartNumber` is none of the listed values: repeat `filter[vendorPartNumber_not_in][]=` or give one comma-separated value. */
            vendorPartNumber_not_in?: string[];
            /**
             * @description Matches when `vendorPartNumber` is less than the value.
             * @example J-1042
             */
            vendorPartNumber_lt?: string;
            /**
             * @description Matches when `vendorPartNumber` is less than or equal to the value.
             * @example J-1042
             */
            vendorPartNumber_lte?: string;
            /**
             * @description Matches when `vendorPartNumber` is greater than the value.
             * @example J-1042
             */
            vendorPartNumber_gt?: string;
            /**
             * @description Matches when `vendorPartNumber` is greater than or equal to the value.
             * @example J-1042
             */
            vendorPartNumber_gte?: string;
            /**
             * @description Matches when `vendorPartNumber` contains (case-insensitive) the value.
             * @example J-1042
             */
            vendorPartNumber_contains?: string;
            /**
             * @description Matches when `vendorPartNumber` starts with (case-insensitive) the value.
             * @example J-1042
             */
            vendorPartNumber_starts_with?: string;
            /**
             * @description Matches when `vendorPartNumber` ends with (case-insensitive) the value.
             * @example J-1042
             */
            vendorPartNumber_ends_with?: string;
        };
        /**
         * @description The ID of the buyer organization that sent the order.
         * @example 6e7f8a9b-0c1d-4e2f-8a3b-4c5d6e7f8a9b
         */
        BuyerId: string;
        /**
         * @description The purchase order number as the seller knows it; matched exactly, or else ignoring whitespace, `-`, `/`, `.`, `_`, `#` and case.
         * @example J-1042-0007
         */
        PurchaseOrderNumber: string;
        /**
         * @description Page size (at most 2500).
         * @example 500
         */
        BulkLimit: number;
        /**
         * @description Field to order items by (default `createdAt`, newest first).
         * @example createdAt
         */
        BulkItemOrderBy: "backorderLeadTime" | "createdAt" | "id" | "lineNumber" | "needByDate" | "universalProductCode" | "updatedAt";
        /**
         * @description Sort direction of `orderBy` (default `DESC`).
         * @example DESC
         */
        BulkDirection: "ASC" | "DESC";
        /** @description Conditions on items across all orders; see "Filters and pagination". `orderId`, `jobId` and `vendorId` (the latter two those of the item's order) accept one value or a list (`_in`). */
        BulkItemFilter: {
            /**
             * @description Matches when `orderId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            orderId?: string;
            /** @description Matches when `orderId` is one of the listed values: repeat `filter[orderId_in][]=` or give one comma-separated value. */
            orderId_in?: string[];
            /**
             * @description Matches when `jobId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            jobId?: string;
            /** @description Matches when `jobId` is one of the listed values: repeat `filter[jobId_in][]=` or give one comma-separated value. */
            jobId_in?: string[];
            /**
             * @description Matches when `vendorId` equals the value.
             * @example 7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42
             */
            vendorId?: string;
            /** @description Matches when `vendorId` is one of the listed values: repeat `filter[vendorId_in][]=` or give one comma-separated value. */
            vendorId_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_not?: string;
            /** @description Matches when `backorderLeadTime` is one of the listed values: repeat `filter[backorderLeadTime_in][]=` or give one comma-separated value. */
            backorderLeadTime_in?: string[];
            /** @description Matches when `backorderLeadTime` is none of the listed values: repeat `filter[backorderLeadTime_not_in][]=` or give one comma-separated value. */
            backorderLeadTime_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `backorderLeadTime` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            backorderLeadTime_gte?: string;
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
             * Format: date-time
             * @description Matches when `needByDate` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_not?: string;
            /** @description Matches when `needByDate` is one of the listed values: repeat `filter[needByDate_in][]=` or give one comma-separated value. */
            needByDate_in?: string[];
            /** @description Matches when `needByDate` is none of the listed values: repeat `filter[needByDate_not_in][]=` or give one comma-separated value. */
            needByDate_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `needByDate` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `needByDate` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            needByDate_gte?: string;
            /**
             * @description Matches when `universalProductCode` equals the value.
             * @example J-1042
             */
            universalProductCode?: string;
            /**
             * @description Matches when `universalProductCode` does not equal the value.
             * @example J-1042
             */
            universalProductCode_not?: string;
            /** @description Matches when `universalProductCode` is one of the listed values: repeat `filter[universalProductCode_in][]=` or give one comma-separated value. */
            universalProductCode_in?: string[];
            /** @description Matches when `universalProductCode` is none of the listed values: repeat `filter[universalProductCode_not_in][]=` or give one comma-separated value. */
            universalProductCode_not_in?: string[];
            /**
             * @description Matches when `universalProductCode` is less than the value.
             * @example J-1042
             */
            universalProductCode_lt?: string;
            /**
             * @description Matches when `universalProductCode` is less than or equal to the value.
             * @example J-1042
             */
            universalProductCode_lte?: string;
            /**
             * @description Matches when `universalProductCode` is greater than the value.
             * @example J-1042
             */
            universalProductCode_gt?: string;
            /**
             * @description Matches when `universalProductCode` is greater than or equal to the value.
             * @example J-1042
             */
            universalProductCode_gte?: string;
            /**
             * @description Matches when `universalProductCode` contains (case-insensitive) the value.
             * @example J-1042
             */
            universalProductCode_contains?: string;
            /**
             * @description Matches when `universalProductCode` starts with (case-insensitive) the value.
             * @example J-1042
             */
            universalProductCode_starts_with?: string;
            /**
             * @description Matches when `universalProductCode` ends with (case-insensitive) the value.
             * @example J-1042
             */
            universalProductCode_ends_with?: string;
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
             * @description Matches when `vendorPartNumber` equals the value.
             * @example J-1042
             */
            vendorPartNumber?: string;
            /**
             * @description Matches when `vendorPartNumber` does not equal the value.
             * @example J-1042
             */
            vendorPartNumber_not?: string;
            /** @description Matches when `vendorPartNumber` is one of the listed values: repeat `filter[vendorPartNumber_in][]=` or give one comma-separated value. */
            vendorPartNumber_in?: string[];
            /** @description Matches when `vendorPartNumber` is none of the listed values: repeat `filter[vendorPartNumber_not_in][]=` or give one comma-separated value. */
            vendorPartNumber_not_in?: string[];
            /**
             * @description Matches when `vendorPartNumber` is less than the value.
             * @example J-1042
             */
            vendorPartNumber_lt?: string;
            /**
             * @description Matches when `vendorPartNumber` is less than or equal to the value.
             * @example J-1042
             */
            vendorPartNumber_lte?: string;
            /**
             * @description Matches when `vendorPartNumber` is greater than the value.
             * @example J-1042
             */
            vendorPartNumber_gt?: string;
            /**
             * @description Matches when `vendorPartNumber` is greater than or equal to the value.
             * @example J-1042
             */
            vendorPartNumber_gte?: string;
            /**
             * @description Matches when `vendorPartNumber` contains (case-insensitive) the value.
             * @example J-1042
             */
            vendorPartNumber_contains?: string;
            /**
             * @description Matches when `vendorPartNumber` starts with (case-insensitive) the value.
             * @example J-1042
             */
            vendorPartNumber_starts_with?: string;
            /**
             * @description Matches when `vendorPartNumber` ends with (case-insensitive) the value.
             * @example J-1042
             */
            vendorPartNumber_ends_with?: string;
        };
        /**
         * @description The item's ID.
         * @example 4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a
         */
        ItemPathId: string;
        /**
         * @description The order's ID.
         * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
         */
        TaggedOrderId: string;
        /**
         * @description Field to order the order's tags by (default `createdAt`).
         * @example createdAt
         */
        OrderTagOrderBy: "color" | "createdAt" | "id" | "title" | "type" | "updatedAt";
        /** @description Conditions on the order's tags; see "Filters and pagination". */
        OrderTagFilter: {
            /**
             * @description Matches when `color` equals the value.
             * @example #ff85c0
             * @enum {string}
             */
            color?: "#ff85c0" | "#ff7875" | "#ff9c6e" | "#ffc069" | "#ffd666" | "#d3f261" | "#95de64" | "#5cdbd3" | "#69b1ff" | "#85a5ff" | "#b37feb" | "#f0f0f0";
            /**
             * @description Matches when `color` does not equal the value.
             * @example #ff85c0
             * @enum {string}
             */
            color_not?: "#ff85c0" | "#ff7875" | "#ff9c6e" | "#ffc069" | "#ffd666" | "#d3f261" | "#95de64" | "#5cdbd3" | "#69b1ff" | "#85a5ff" | "#b37feb" | "#f0f0f0";
            /** @description Matches when `color` is one of the listed values: repeat `filter[color_in][]=` or give one comma-separated value. */
            color_in?: ("#ff85c0" | "#ff7875" | "#ff9c6e" | "#ffc069" | "#ffd666" | "#d3f261" | "#95de64" | "#5cdbd3" | "#69b1ff" | "#85a5ff" | "#b37feb" | "#f0f0f0")[];
            /** @description Matches when `color` is none of the listed values: repeat `filter[color_not_in][]=` or give one comma-separated value. */
            color_not_in?: ("#ff85c0" | "#ff7875" | "#ff9c6e" | "#ffc069" | "#ffd666" | "#d3f261" | "#95de64" | "#5cdbd3" | "#69b1ff" | "#85a5ff" | "#b37feb" | "#f0f0f0")[];
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
             * @description Matches when `type` equals the value.
             * @example ORDER
             * @enum {string}
             */
            type?: "ORDER" | "INVENTORY_ITEM" | "REQUISITION" | "TOOL";
            /**
             * @description Matches when `type` does not equal the value.
             * @example ORDER
             * @enum {string}
             */
            type_not?: "ORDER" | "INVENTORY_ITEM" | "REQUISITION" | "TOOL";
            /** @description Matches when `type` is one of the listed values: repeat `filter[type_in][]=` or give one comma-separated value. */
            type_in?: ("ORDER" | "INVENTORY_ITEM" | "REQUISITION" | "TOOL")[];
            /** @description Matches when `type` is none of the listed values: repeat `filter[type_not_in][]=` or give one comma-separated value. */
            type_not_in?: ("ORDER" | "INVENTORY_ITEM" | "REQUISITION" | "TOOL")[];
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
         * @description The tag's ID.
         * @example 0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b
         */
        TagId: string;
        /**
         * @description Field to order notifications by (default `createdAt`).
         * @example createdAt
         */
        NotificationOrderBy: "createdAt" | "id" | "isRead" | "readAt" | "type" | "updatedAt";
        /** @description Conditions on notifications; see "Filters and pagination". */
        NotificationFilter: {
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
             * @description Matches when `isRead` equals the value.
             * @example true
             */
            isRead?: boolean;
            /**
             * @description Matches when `isRead` does not equal the value.
             * @example true
             */
            isRead_not?: boolean;
            /**
             * Format: date-time
             * @description Matches when `readAt` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            readAt?: string;
            /**
             * Format: date-time
             * @description Matches when `readAt` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            readAt_not?: string;
            /** @description Matches when `readAt` is one of the listed values: repeat `filter[readAt_in][]=` or give one comma-separated value. */
            readAt_in?: string[];
            /** @description Matches when `readAt` is none of the listed values: repeat `filter[readAt_not_in][]=` or give one comma-separated value. */
            readAt_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `readAt` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            readAt_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `readAt` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            readAt_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `readAt` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            readAt_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `readAt` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            readAt_gte?: string;
            /**
             * @description Matches when `type` equals the value.
             * @example integration_issue
             * @enum {string}
             */
            type?: "integration_issue" | "integration_issue_resolved";
            /**
             * @description Matches when `type` does not equal the value.
             * @example integration_issue
             * @enum {string}
             */
            type_not?: "integration_issue" | "integration_issue_resolved";
            /** @description Matches when `type` is one of the listed values: repeat `filter[type_in][]=` or give one comma-separated value. */
            type_in?: ("integration_issue" | "integration_issue_resolved")[];
            /** @description Matches when `type` is none of the listed values: repeat `filter[type_not_in][]=` or give one comma-separated value. */
            type_not_in?: ("integration_issue" | "integration_issue_resolved")[];
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
    listOrders: {
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
                 * @description Field to order orders by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["OrderOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on orders; see "Filters and pagination". `integrationState` accepts only the list form `integrationState_in`. */
                filter?: components["parameters"]["OrderFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of orders. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *         "createdAt": "2026-10-01T15:30:00.000Z",
                     *         "updatedAt": "2026-10-03T09:12:45.120Z",
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "deliveryLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "deliveryInstructions": "Deliver to the north gate; call the field contact 30 minutes ahead.",
                     *         "discount": 150,
                     *         "fieldContactName": "Marcus Reed",
                     *         "fieldContactPhone": "+1 916 555 0142",
                     *         "flagged": false,
                     *         "flaggedAt": null,
                     *         "flagMessage": null,
                     *         "glCode": {
                     *           "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *           "code": "5100-MAT"
                     *         },
                     *         "integrationLastSync": "2026-10-03T09:15:02.000Z",
                     *         "integrationMessage": null,
                     *         "integrationState": "LINKED",
                     *         "isProjectPO": false,
                     *         "mode": "ISSUE_PO",
                     *         "needByDateDay": "2026-10-08T00:00:00.000Z",
                     *         "needByWindow": "AM",
                     *         "notes": "Match submittal 03-300-004.",
                     *         "purchaseOrderNumber": "J-1042-0007",
                     *         "shippingCost": 85,
                     *         "state": "ACTIVE",
                     *         "taxCode": {
                     *           "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *           "code": "TX-CA",
                     *           "taxPercent": 0.0725
                     *         },
                     *         "attachments": [
                     *           {
                     *             "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *             "createdAt": "2026-10-01T15:31:10.000Z",
                     *             "updatedAt": "2026-10-01T15:31:10.000Z",
                     *             "identifier": "Vendor quote Q-88213",
                     *             "file": {
                     *               "id": "4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e",
                     *               "name": "ferguson-quote-Q-88213.pdf",
                     *               "url": "https://files.procurement.dev/7d1c2f5e/ferguson-quote-Q-88213.pdf",
                     *               "createdAt": "2026-10-01T15:31:09.000Z",
                     *               "updatedAt": "2026-10-01T15:31:09.000Z"
                     *             }
                     *           }
                     *         ],
                     *         "taxExempt": false,
                     *         "type": "STANDARD",
                     *         "receivedState": "PARTIALLY_RECEIVED",
                     *         "customColumnValue": "Level 2 east wing",
                     *         "title": "Slab-on-grade rebar and mesh",
                     *         "offRentDate": null,
                     *         "offRentNumber": null,
                     *         "distributorContactName": "Dana Whitfield",
                     *         "headerCustomFieldValue": "CC-7781"
                     *       },
                     *       {
                     *         "id": "1c2d3e4f-5a6b-4c7d-8e8f-9a0b1c2d3e4f",
                     *         "createdAt": "2026-10-06T18:02:11.000Z",
                     *         "updatedAt": "2026-10-06T18:02:11.000Z",
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "deliveryLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "deliveryInstructions": null,
                     *         "discount": null,
                     *         "fieldContactName": "Marcus Reed",
                     *         "fieldContactPhone": "+1 916 555 0142",
                     *         "flagged": true,
                     *         "flaggedAt": "2026-10-07T08:00:00.000Z",
                     *         "flagMessage": "Vendor cannot ship the 4 in. conduit before 10/20.",
                     *         "glCode": null,
                     *         "integrationLastSync": null,
                     *         "integrationMessage": "Vendor V-GRAYBAR is not mapped in the ERP.",
                     *         "integrationState": "ERROR",
                     *         "isProjectPO": true,
                     *         "mode": "PRE_ACKNOWLEDGED",
                     *         "needByDateDay": "2026-10-20T00:00:00.000Z",
                     *         "needByWindow": "ASAP",
                     *         "notes": null,
                     *         "purchaseOrderNumber": "J-1042-0008",
                     *         "shippingCost": null,
                     *         "state": "ACTIVE",
                     *         "taxCode": null,
                     *         "attachments": [],
                     *         "taxExempt": true,
                     *         "type": "MAJOR",
                     *         "receivedState": "NO_DELIVERIES",
                     *         "customColumnValue": null,
                     *         "title": "Electrical rough-in package",
                     *         "offRentDate": null,
                     *         "offRentNumber": null,
                     *         "distributorContactName": null,
                     *         "headerCustomFieldValue": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Order"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: components["parameters"]["OrderPathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *       "createdAt": "2026-10-01T15:30:00.000Z",
                     *       "updatedAt": "2026-10-03T09:12:45.120Z",
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "deliveryLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "deliveryInstructions": "Deliver to the north gate; call the field contact 30 minutes ahead.",
                     *       "discount": 150,
                     *       "fieldContactName": "Marcus Reed",
                     *       "fieldContactPhone": "+1 916 555 0142",
                     *       "flagged": false,
                     *       "flaggedAt": null,
                     *       "flagMessage": null,
                     *       "glCode": {
                     *         "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *         "code": "5100-MAT"
                     *       },
                     *       "integrationLastSync": "2026-10-03T09:15:02.000Z",
                     *       "integrationMessage": null,
                     *       "integrationState": "LINKED",
                     *       "isProjectPO": false,
                     *       "mode": "ISSUE_PO",
                     *       "needByDateDay": "2026-10-08T00:00:00.000Z",
                     *       "needByWindow": "AM",
                     *       "notes": "Match submittal 03-300-004.",
                     *       "purchaseOrderNumber": "J-1042-0007",
                     *       "shippingCost": 85,
                     *       "state": "ACTIVE",
                     *       "taxCode": {
                     *         "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "code": "TX-CA",
                     *         "taxPercent": 0.0725
                     *       },
                     *       "attachments": [
                     *         {
                     *           "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *           "createdAt": "2026-10-01T15:31:10.000Z",
                     *           "updatedAt": "2026-10-01T15:31:10.000Z",
                     *           "identifier": "Vendor quote Q-88213",
                     *           "file": {
                     *             "id": "4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e",
                     *             "name": "ferguson-quote-Q-88213.pdf",
                     *             "url": "https://files.procurement.dev/7d1c2f5e/ferguson-quote-Q-88213.pdf",
                     *             "createdAt": "2026-10-01T15:31:09.000Z",
                     *             "updatedAt": "2026-10-01T15:31:09.000Z"
                     *           }
                     *         }
                     *       ],
                     *       "taxExempt": false,
                     *       "type": "STANDARD",
                     *       "receivedState": "PARTIALLY_RECEIVED",
                     *       "customColumnValue": "Level 2 east wing",
                     *       "title": "Slab-on-grade rebar and mesh",
                     *       "offRentDate": null,
                     *       "offRentNumber": null,
                     *       "distributorContactName": "Dana Whitfield",
                     *       "headerCustomFieldValue": "CC-7781"
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateOrderIntegrationState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: components["parameters"]["OrderPathId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "integrationState": "ERROR",
                 *       "integrationMessage": "Vendor V-GRAYBAR is not mapped in the ERP."
                 *     }
                 */
                "application/json": components["schemas"]["OrderIntegrationStateUpdate"];
            };
        };
        responses: {
            /** @description The order with its new integration state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *       "createdAt": "2026-10-01T15:30:00.000Z",
                     *       "updatedAt": "2026-10-03T09:12:45.120Z",
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "deliveryLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "deliveryInstructions": "Deliver to the north gate; call the field contact 30 minutes ahead.",
                     *       "discount": 150,
                     *       "fieldContactName": "Marcus Reed",
                     *       "fieldContactPhone": "+1 916 555 0142",
                     *       "flagged": false,
                     *       "flaggedAt": null,
                     *       "flagMessage": null,
                     *       "glCode": {
                     *         "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *         "code": "5100-MAT"
                     *       },
                     *       "integrationLastSync": "2026-10-03T09:15:02.000Z",
                     *       "integrationMessage": "Vendor V-GRAYBAR is not mapped in the ERP.",
                     *       "integrationState": "ERROR",
                     *       "isProjectPO": false,
                     *       "mode": "ISSUE_PO",
                     *       "needByDateDay": "2026-10-08T00:00:00.000Z",
                     *       "needByWindow": "AM",
                     *       "notes": "Match submittal 03-300-004.",
                     *       "purchaseOrderNumber": "J-1042-0007",
                     *       "shippingCost": 85,
                     *       "state": "ACTIVE",
                     *       "taxCode": {
                     *         "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "code": "TX-CA",
                     *         "taxPercent": 0.0725
                     *       },
                     *       "attachments": [
                     *         {
                     *           "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *           "createdAt": "2026-10-01T15:31:10.000Z",
                     *           "updatedAt": "2026-10-01T15:31:10.000Z",
                     *           "identifier": "Vendor quote Q-88213",
                     *           "file": {
                     *             "id": "4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e",
                     *             "name": "ferguson-quote-Q-88213.pdf",
                     *             "url": "https://files.procurement.dev/7d1c2f5e/ferguson-quote-Q-88213.pdf",
                     *             "createdAt": "2026-10-01T15:31:09.000Z",
                     *             "updatedAt": "2026-10-01T15:31:09.000Z"
                     *           }
                     *         }
                     *       ],
                     *       "taxExempt": false,
                     *       "type": "STANDARD",
                     *       "receivedState": "PARTIALLY_RECEIVED",
                     *       "customColumnValue": "Level 2 east wing",
                     *       "title": "Slab-on-grade rebar and mesh",
                     *       "offRentDate": null,
                     *       "offRentNumber": null,
                     *       "distributorContactName": "Dana Whitfield",
                     *       "headerCustomFieldValue": "CC-7781"
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listOrderItems: {
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
                 * @description Field to order the order's items by (default `lineNumber`).
                 * @example lineNumber
                 */
                orderBy?: components["parameters"]["ItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on the order's items; see "Filters and pagination". */
                filter?: components["parameters"]["ItemFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                id: components["parameters"]["OrderPathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the order's items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a",
                     *         "lineNumber": 1,
                     *         "orderId": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *         "description": "#4 rebar, grade 60, 20 ft",
                     *         "quantity": 1200,
                     *         "extendedQuantity": 1200,
                     *         "unitsOfMeasure": "C",
                     *         "unitsOfMeasureId": "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c",
                     *         "requestedUOM": "LF",
                     *         "pricingUOM": "C",
                     *         "extendedUOM": "LF",
                     *         "unitPrice": 86.5,
                     *         "scaledUnitPrice": 0.865,
                     *         "unitDiscount": 2.5,
                     *         "extPrice": 1012.05,
                     *         "extPriceIncludingTax": 1085.42,
                     *         "backorderLeadTime": null,
                     *         "backorderQuantity": null,
                     *         "needByDate": "2026-10-08T00:00:00.000Z",
                     *         "expectedDeliveryTime": "2026-10-07T15:00:00.000Z",
                     *         "manufacturer": "Nucor",
                     *         "manufacturerPartNumber": "RB4-G60-20",
                     *         "universalProductCode": "012345678905",
                     *         "vendorPartNumber": "FRG-RB4-20",
                     *         "notes": "Bundle by 50.",
                     *         "customColumnValue": null,
                     *         "itemCode": {
                     *           "id": "8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e",
                     *           "code": "REBAR-4",
                     *           "description": "Reinforcing bar #4"
                     *         },
                     *         "itemCodeId": "8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e",
                     *         "itemCodeText": null,
                     *         "costCategory": {
                     *           "id": "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
                     *           "code": "MAT",
                     *           "description": "Materials"
                     *         },
                     *         "costType": {
                     *           "id": "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f",
                     *           "code": "M",
                     *           "description": "Material cost"
                     *         },
                     *         "glCode": {
                     *           "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *           "code": "5100-MAT"
                     *         },
                     *         "taxCode": {
                     *           "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *           "code": "TX-CA",
                     *           "taxPercent": 0.0725
                     *         },
                     *         "phase": {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "code": "03-300",
                     *           "description": "Cast-in-place concrete"
                     *         },
                     *         "subJob": null,
                     *         "costsInventoryItemLedgerEntry": null,
                     *         "costsInventoryItemLedgerEntryId": null,
                     *         "destinationInventoryItemLedger": null,
                     *         "createdAt": "2026-10-01T15:30:00.000Z",
                     *         "updatedAt": "2026-10-01T15:30:00.000Z"
                     *       },
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "lineNumber": 2,
                     *         "orderId": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *         "description": "6x6 W2.9xW2.9 welded wire mesh sheet, 8x20 ft",
                     *         "quantity": 40,
                     *         "extendedQuantity": 40,
                     *         "unitsOfMeasure": "EA",
                     *         "unitsOfMeasureId": "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
                     *         "requestedUOM": "EA",
                     *         "pricingUOM": "EA",
                     *         "extendedUOM": "EA",
                     *         "unitPrice": 42.75,
                     *         "scaledUnitPrice": 42.75,
                     *         "unitDiscount": null,
                     *         "extPrice": 1710,
                     *         "extPriceIncludingTax": 1833.98,
                     *         "backorderLeadTime": null,
                     *         "backorderQuantity": null,
                     *         "needByDate": "2026-10-08T00:00:00.000Z",
                     *         "expectedDeliveryTime": "2026-10-07T15:00:00.000Z",
                     *         "manufacturer": "Insteel",
                     *         "manufacturerPartNumber": "WWM-6629-820",
                     *         "universalProductCode": null,
                     *         "vendorPartNumber": "FRG-WWM-820",
                     *         "notes": null,
                     *         "customColumnValue": null,
                     *         "itemCode": null,
                     *         "itemCodeId": null,
                     *         "itemCodeText": "MESH-6X6",
                     *         "costCategory": {
                     *           "id": "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
                     *           "code": "MAT",
                     *           "description": "Materials"
                     *         },
                     *         "costType": {
                     *           "id": "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f",
                     *           "code": "M",
                     *           "description": "Material cost"
                     *         },
                     *         "glCode": {
                     *           "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *           "code": "5100-MAT"
                     *         },
                     *         "taxCode": {
                     *           "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *           "code": "TX-CA",
                     *           "taxPercent": 0.0725
                     *         },
                     *         "phase": {
                     *           "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *           "code": "03-300",
                     *           "description": "Cast-in-place concrete"
                     *         },
                     *         "subJob": null,
                     *         "costsInventoryItemLedgerEntry": null,
                     *         "costsInventoryItemLedgerEntryId": null,
                     *         "destinationInventoryItemLedger": null,
                     *         "createdAt": "2026-10-01T15:30:00.000Z",
                     *         "updatedAt": "2026-10-01T15:30:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Item"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    findSellerOrder: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The ID of the buyer organization that sent the order.
                 * @example 6e7f8a9b-0c1d-4e2f-8a3b-4c5d6e7f8a9b
                 */
                buyerId: components["parameters"]["BuyerId"];
                /**
                 * @description The purchase order number as the seller knows it; matched exactly, or else ignoring whitespace, `-`, `/`, `.`, `_`, `#` and case.
                 * @example J-1042-0007
                 */
                purchaseOrderNumber: components["parameters"]["PurchaseOrderNumber"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The buyer's order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *       "createdAt": "2026-10-01T15:30:00.000Z",
                     *       "updatedAt": "2026-10-03T09:12:45.120Z",
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "updatedById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "deliveryLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "deliveryInstructions": "Deliver to the north gate; call the field contact 30 minutes ahead.",
                     *       "discount": 150,
                     *       "fieldContactName": "Marcus Reed",
                     *       "fieldContactPhone": "+1 916 555 0142",
                     *       "flagged": false,
                     *       "flaggedAt": null,
                     *       "flagMessage": null,
                     *       "glCode": {
                     *         "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *         "code": "5100-MAT"
                     *       },
                     *       "integrationLastSync": "2026-10-03T09:15:02.000Z",
                     *       "integrationMessage": null,
                     *       "integrationState": "LINKED",
                     *       "isProjectPO": false,
                     *       "mode": "ISSUE_PO",
                     *       "needByDateDay": "2026-10-08T00:00:00.000Z",
                     *       "needByWindow": "AM",
                     *       "notes": "Match submittal 03-300-004.",
                     *       "purchaseOrderNumber": "J-1042-0007",
                     *       "shippingCost": 85,
                     *       "state": "ACTIVE",
                     *       "taxCode": {
                     *         "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "code": "TX-CA",
                     *         "taxPercent": 0.0725
                     *       },
                     *       "attachments": [
                     *         {
                     *           "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *           "createdAt": "2026-10-01T15:31:10.000Z",
                     *           "updatedAt": "2026-10-01T15:31:10.000Z",
                     *           "identifier": "Vendor quote Q-88213",
                     *           "file": {
                     *             "id": "4a8f2c1d-9b7e-4e3a-8c5d-6f1b2a3c4d5e",
                     *             "name": "ferguson-quote-Q-88213.pdf",
                     *             "url": "https://files.procurement.dev/7d1c2f5e/ferguson-quote-Q-88213.pdf",
                     *             "createdAt": "2026-10-01T15:31:09.000Z",
                     *             "updatedAt": "2026-10-01T15:31:09.000Z"
                     *           }
                     *         }
                     *       ],
                     *       "taxExempt": false,
                     *       "type": "STANDARD",
                     *       "receivedState": "PARTIALLY_RECEIVED",
                     *       "customColumnValue": "Level 2 east wing",
                     *       "title": "Slab-on-grade rebar and mesh",
                     *       "offRentDate": null,
                     *       "offRentNumber": null,
                     *       "distributorContactName": "Dana Whitfield",
                     *       "headerCustomFieldValue": "CC-7781"
                     *     }
                     */
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listItems: {
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
                 * @description Field to order items by (default `createdAt`, newest first).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["BulkItemOrderBy"];
                /**
                 * @description Sort direction of `orderBy` (default `DESC`).
                 * @example DESC
                 */
                direction?: components["parameters"]["BulkDirection"];
                /** @description Conditions on items across all orders; see "Filters and pagination". `orderId`, `jobId` and `vendorId` (the latter two those of the item's order) accept one value or a list (`_in`). */
                filter?: components["parameters"]["BulkItemFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of items with the total. */
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
                     *           "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *           "lineNumber": 2,
                     *           "orderId": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *           "description": "6x6 W2.9xW2.9 welded wire mesh sheet, 8x20 ft",
                     *           "quantity": 40,
                     *           "extendedQuantity": 40,
                     *           "unitsOfMeasure": "EA",
                     *           "unitsOfMeasureId": "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
                     *           "requestedUOM": "EA",
                     *           "pricingUOM": "EA",
                     *           "extendedUOM": "EA",
                     *           "unitPrice": 42.75,
                     *           "scaledUnitPrice": 42.75,
                     *           "unitDiscount": null,
                     *           "extPrice": 1710,
                     *           "extPriceIncludingTax": 1833.98,
                     *           "backorderLeadTime": null,
                     *           "backorderQuantity": null,
                     *           "needByDate": "2026-10-08T00:00:00.000Z",
                     *           "expectedDeliveryTime": "2026-10-07T15:00:00.000Z",
                     *           "manufacturer": "Insteel",
                     *           "manufacturerPartNumber": "WWM-6629-820",
                     *           "universalProductCode": null,
                     *           "vendorPartNumber": "FRG-WWM-820",
                     *           "notes": null,
                     *           "customColumnValue": null,
                     *           "itemCode": null,
                     *           "itemCodeId": null,
                     *           "itemCodeText": "MESH-6X6",
                     *           "costsInventoryItemLedgerEntryId": null,
                     *           "createdAt": "2026-10-01T15:30:00.000Z",
                     *           "updatedAt": "2026-10-01T15:30:00.000Z",
                     *           "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *           "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "phaseCodeCode": "03-300",
                     *           "costCategoryCode": "MAT",
                     *           "glCodeCode": "5100-MAT",
                     *           "taxCodeCode": "TX-CA",
                     *           "costTypeCode": "M"
                     *         },
                     *         {
                     *           "id": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a",
                     *           "lineNumber": 1,
                     *           "orderId": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *           "description": "#4 rebar, grade 60, 20 ft",
                     *           "quantity": 1200,
                     *           "extendedQuantity": 1200,
                     *           "unitsOfMeasure": "C",
                     *           "unitsOfMeasureId": "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c",
                     *           "requestedUOM": "LF",
                     *           "pricingUOM": "C",
                     *           "extendedUOM": "LF",
                     *           "unitPrice": 86.5,
                     *           "scaledUnitPrice": 0.865,
                     *           "unitDiscount": 2.5,
                     *           "extPrice": 1012.05,
                     *           "extPriceIncludingTax": 1085.42,
                     *           "backorderLeadTime": null,
                     *           "backorderQuantity": null,
                     *           "needByDate": "2026-10-08T00:00:00.000Z",
                     *           "expectedDeliveryTime": "2026-10-07T15:00:00.000Z",
                     *           "manufacturer": "Nucor",
                     *           "manufacturerPartNumber": "RB4-G60-20",
                     *           "universalProductCode": "012345678905",
                     *           "vendorPartNumber": "FRG-RB4-20",
                     *           "notes": "Bundle by 50.",
                     *           "customColumnValue": null,
                     *           "itemCode": {
                     *             "id": "8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e",
                     *             "code": "REBAR-4",
                     *             "description": "Reinforcing bar #4"
                     *           },
                     *           "itemCodeId": "8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e",
                     *           "itemCodeText": null,
                     *           "costsInventoryItemLedgerEntryId": null,
                     *           "createdAt": "2026-10-01T15:30:00.000Z",
                     *           "updatedAt": "2026-10-01T15:30:00.000Z",
                     *           "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *           "vendorId": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *           "phaseCodeCode": "03-300",
                     *           "costCategoryCode": "MAT",
                     *           "glCodeCode": "5100-MAT",
                     *           "taxCodeCode": "TX-CA",
                     *           "costTypeCode": "M"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["BulkItemPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    getItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The item's ID.
                 * @example 4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a
                 */
                id: components["parameters"]["ItemPathId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The item. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a",
                     *       "lineNumber": 1,
                     *       "orderId": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *       "description": "#4 rebar, grade 60, 20 ft",
                     *       "quantity": 1200,
                     *       "extendedQuantity": 1200,
                     *       "unitsOfMeasure": "C",
                     *       "unitsOfMeasureId": "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c",
                     *       "requestedUOM": "LF",
                     *       "pricingUOM": "C",
                     *       "extendedUOM": "LF",
                     *       "unitPrice": 86.5,
                     *       "scaledUnitPrice": 0.865,
                     *       "unitDiscount": 2.5,
                     *       "extPrice": 1012.05,
                     *       "extPriceIncludingTax": 1085.42,
                     *       "backorderLeadTime": null,
                     *       "backorderQuantity": null,
                     *       "needByDate": "2026-10-08T00:00:00.000Z",
                     *       "expectedDeliveryTime": "2026-10-07T15:00:00.000Z",
                     *       "manufacturer": "Nucor",
                     *       "manufacturerPartNumber": "RB4-G60-20",
                     *       "universalProductCode": "012345678905",
                     *       "vendorPartNumber": "FRG-RB4-20",
                     *       "notes": "Bundle by 50.",
                     *       "customColumnValue": null,
                     *       "itemCode": {
                     *         "id": "8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e",
                     *         "code": "REBAR-4",
                     *         "description": "Reinforcing bar #4"
                     *       },
                     *       "itemCodeId": "8b9c0d1e-2f3a-4b4c-9d5e-6f7a8b9c0d1e",
                     *       "itemCodeText": null,
                     *       "costCategory": {
                     *         "id": "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
                     *         "code": "MAT",
                     *         "description": "Materials"
                     *       },
                     *       "costType": {
                     *         "id": "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f",
                     *         "code": "M",
                     *         "description": "Material cost"
                     *       },
                     *       "glCode": {
                     *         "id": "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f",
                     *         "code": "5100-MAT"
                     *       },
                     *       "taxCode": {
                     *         "id": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "code": "TX-CA",
                     *         "taxPercent": 0.0725
                     *       },
                     *       "phase": {
                     *         "id": "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b",
                     *         "code": "03-300",
                     *         "description": "Cast-in-place concrete"
                     *       },
                     *       "subJob": null,
                     *       "costsInventoryItemLedgerEntry": null,
                     *       "costsInventoryItemLedgerEntryId": null,
                     *       "destinationInventoryItemLedger": null,
                     *       "createdAt": "2026-10-01T15:30:00.000Z",
                     *       "updatedAt": "2026-10-01T15:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Item"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listOrderTags: {
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
                 * @description Field to order the order's tags by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["OrderTagOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on the order's tags; see "Filters and pagination". */
                filter?: components["parameters"]["OrderTagFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                orderId: components["parameters"]["TaggedOrderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the order's tags. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b",
                     *         "title": "Long lead",
                     *         "type": "ORDER",
                     *         "color": "#ffc069",
                     *         "createdAt": "2026-04-03T13:14:15.000Z",
                     *         "updatedAt": "2026-04-03T13:14:15.000Z"
                     *       },
                     *       {
                     *         "id": "1f2a3b4c-5d6e-4f7a-8b9c-0d1e2f3a4b5c",
                     *         "title": "Owner furnished",
                     *         "type": "ORDER",
                     *         "color": null,
                     *         "createdAt": "2026-11-21T10:00:00.000Z",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Tag"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    addOrderTags: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                orderId: components["parameters"]["TaggedOrderId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "id": "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b",
                 *         "title": "Long lead"
                 *       },
                 *       {
                 *         "title": "Owner furnished"
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["OrderTagInput"][];
            };
        };
        responses: {
            /** @description The tags added to the order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b",
                     *         "title": "Long lead",
                     *         "type": "ORDER",
                     *         "color": "#ffc069",
                     *         "createdAt": "2026-04-03T13:14:15.000Z",
                     *         "updatedAt": "2026-04-03T13:14:15.000Z"
                     *       },
                     *       {
                     *         "id": "1f2a3b4c-5d6e-4f7a-8b9c-0d1e2f3a4b5c",
                     *         "title": "Owner furnished",
                     *         "type": "ORDER",
                     *         "color": null,
                     *         "createdAt": "2026-11-21T10:00:00.000Z",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Tag"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
        };
    };
    removeOrderTag: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's ID.
                 * @example 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e
                 */
                orderId: components["parameters"]["TaggedOrderId"];
                /**
                 * @description The tag's ID.
                 * @example 0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b
                 */
                tagId: components["parameters"]["TagId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tag was removed from the order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example true */
                    "application/json": true;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    listNotifications: {
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
                 * @description Field to order notifications by (default `createdAt`).
                 * @example createdAt
                 */
                orderBy?: components["parameters"]["NotificationOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on notifications; see "Filters and pagination". */
                filter?: components["parameters"]["NotificationFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of notifications. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
                     *         "type": "integration_issue",
                     *         "payload": {
                     *           "lastSyncTime": "2026-11-20T22:10:00.000Z",
                     *           "order": {
                     *             "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
                     *           }
                     *         },
                     *         "recipientId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "isRead": false,
                     *         "readAt": null,
                     *         "createdAt": "2026-11-21T07:45:00.000Z",
                     *         "updatedAt": "2026-11-21T07:45:00.000Z"
                     *       },
                     *       {
                     *         "id": "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e",
                     *         "type": "integration_issue_resolved",
                     *         "payload": {
                     *           "resolvedAt": "2026-11-21T08:02:00.000Z"
                     *         },
                     *         "recipientId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "isRead": true,
                     *         "readAt": "2026-11-21T09:00:00.000Z",
                     *         "createdAt": "2026-11-21T08:02:30.000Z",
                     *         "updatedAt": "2026-11-21T09:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Notification"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
        };
    };
    createNotification: {
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
                 *       "recipientId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                 *       "type": "integration_issue",
                 *       "payload": {
                 *         "lastSyncTime": "2026-11-20T22:10:00.000Z",
                 *         "order": {
                 *           "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["NotificationCreate"];
            };
        };
        responses: {
            /** @description The created notification. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
                     *       "type": "integration_issue",
                     *       "payload": {
                     *         "lastSyncTime": "2026-11-20T22:10:00.000Z",
                     *         "order": {
                     *           "id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
                     *         }
                     *       },
                     *       "recipientId": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "isRead": false,
                     *       "readAt": null,
                     *       "createdAt": "2026-11-21T07:45:00.000Z",
                     *       "updatedAt": "2026-11-21T07:45:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Notification"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
    updateNotifications: {
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
                 *       "id_in": [
                 *         "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
                 *         "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e"
                 *       ],
                 *       "data": {
                 *         "isRead": true
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["NotificationUpdate"];
            };
        };
        responses: {
            /** @description The IDs of the updated notifications. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
                     *       "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e"
                     *     ]
                     */
                    "application/json": string[];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
        };
    };
}
