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
    "/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List jobs
         * @description Lists the organization's jobs, ordered by `createdAt` (then `id`) unless `orderBy` says otherwise.
         */
        get: operations["listJobs"];
        put?: never;
        /**
         * Create a job
         * @description Creates a job. `state` defaults to `OPEN`. The default location is either an existing location
         *     (`defaultLocationId`, which is attached to the job) or one given inline (`defaultLocation`,
         *     which is created, attached and made the default; its `type` defaults to `Jobsite`); giving both
         *     is a `400`. Every referenced ID (location, tax code, groups) must belong to the organization,
         *     otherwise the answer is `404` naming the input. The code must be unique in the organization.
         */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create or update jobs in a batch
         * @description Creates or updates up to 1000 jobs in one transaction, each matched by `code`. An existing job
         *     keeps the values of fields its element leaves out; `groupIds` replaces its groups; an inline
         *     `defaultLocation` updates the job's current default location, or creates one when it has none.
         *     An empty list (`Invalid input, list cannot be empty`) or more than 1000 elements
         *     (`Invalid input, list cannot be greater than 1000`) is a `400` before any element is examined.
         *     If any element is invalid nothing is saved and one `400` names every rejected element in a line
         *     `Position <n>: ...` (zero-based): the same code twice, both `defaultLocationId` and
         *     `defaultLocation`, or a location, tax code or group ID that is not the organization's.
         *     The response lists the jobs in input order.
         */
        post: operations["upsertJobs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{idOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        /**
         * Get a job
         * @description Reads one job by ID or code.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a job
         * @description Changes the given fields of a job. `code` renames the job: the path may name the job by its ID
         *     or by its current code, and the body's `code` becomes its new code. `defaultLocationId`
         *     attaches an existing location and makes it the default (null clears the default);
         *     `defaultLocation` updates the given fields of the current default location, or creates,
         *     attaches and sets one when the job has none (the type of a `Warehouse` location cannot be
         *     changed); giving both is a `400`. `groupIds` replaces the job's groups. Every referenced ID
         *     must belong to the organization, otherwise the answer is `404` naming the input.
         */
        patch: operations["updateJob"];
        trace?: never;
    };
    "/jobs/{idOrCode}/locations": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        /**
         * List a job's locations
         * @description Lists the locations attached to the job (including its default location), with the same paging, ordering and filters as `GET /locations`.
         */
        get: operations["listJobLocations"];
        put?: never;
        /**
         * Attach a location to a job
         * @description Attaches a location of the organization to the job (attaching it again changes nothing) and, with `shouldSetAsDefault=true`, makes it the job's default location. A location that is not the organization's is a `404`.
         */
        post: operations["addJobLocation"];
        /**
         * Detach a location from a job
         * @description Detaches a location from the job (detaching one that is not attached changes nothing). When it was the job's default location, the location attached to the job earliest among the remaining ones becomes the default, or the default becomes null when none is left. A location that is not the organization's is a `404`.
         */
        delete: operations["removeJobLocation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{idOrCode}/users": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        /**
         * List a job's users
         * @description Lists the users assigned to the job, with the same paging, ordering and filters as `GET /users`.
         */
        get: operations["listJobUsers"];
        put?: never;
        /**
         * Assign a user to a job
         * @description Assigns a user of the organization to the job (assigning again changes nothing). A user that is not the organization's is a `404`.
         */
        post: operations["addJobUser"];
        /**
         * Unassign a user from a job
         * @description Removes a user from the job (removing one that is not assigned changes nothing). A user that is not the organization's is a `404`.
         */
        delete: operations["removeJobUser"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{idOrCode}/nextPurchaseOrderNumber": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        /**
         * Get a job's next purchase order number
         * @description The number the job's next purchase order will get. It is the job's counter, skipping numbers already carried by the job's purchase orders that are not deleted (compared as decimal text, so `"1050"` uses 1050 but `"PO-1050"` does not).
         */
        get: operations["getNextPurchaseOrderNumber"];
        put?: never;
        /**
         * Set a job's purchase order counter
         * @description Sets the number the job's next purchase order gets. If the value is already in use by one of
         *     the job's purchase orders that is not deleted, the counter keeps incrementing by 1 until a free
         *     number is found. Numbers are taken from the counter atomically, so concurrent orders and
         *     concurrent changes of the counter never hand out a number already in use.
         *     This operation must be enabled for the organization by a support request; until then it
         *     answers `403`.
         */
        post: operations["setNextPurchaseOrderNumber"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List groups
         * @description Lists the organization's groups of jobs, ordered by `id` unless `orderBy` says otherwise.
         */
        get: operations["listGroups"];
        put?: never;
        /**
         * Create a group
         * @description Creates a group of jobs. `name` is required; `code` is optional and, when given, unique in the organization. `createdById` is the calling user.
         */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The group's ID.
                 * @example 6c5b4a39-2817-4f6e-9d5c-4b3a29181706
                 */
                id: components["parameters"]["GroupId"];
            };
            cookie?: never;
        };
        /**
         * Get a group
         * @description Reads one group by ID.
         */
        get: operations["getGroup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a group
         * @description Changes the given fields of a group. The code must stay unique in the organization.
         */
        patch: operations["updateGroup"];
        trace?: never;
    };
    "/locations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List locations
         * @description Lists the organization's locations (deleted ones excluded), ordered by `createdAt` (then `id`) unless `orderBy` says otherwise; `orderBy=displayName` orders by the location's `name`. Each location lists the jobs it is attached to (as an attached location or as their default location) and the vendors whose location it is.
         */
        get: operations["listLocations"];
        put?: never;
        /**
         * Create a location
         * @description Creates a location. `name` and `type` are required; address fields, directions, phone,
         *     `defaultTaxCodeId`, `latitude` and `longitude` default to null and `visibility` to `ALL`.
         *     `visibility` `ROLE` is rejected with a `400`: role-based visibility is configured only in
         *     the application. A tax code that is not the organization's is a `404`.
         */
        post: operations["createLocation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/locations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The location's ID.
                 * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
                 */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        /**
         * Get a location
         * @description Reads one location by ID, with the jobs and vendors it is attached to.
         */
        get: operations["getLocation"];
        put?: never;
        post?: never;
        /**
         * Delete a location
         * @description Soft-deletes a location and returns it with `deletedAt` and the jobs and vendors it was
         *     attached to. It is detached from them: a job whose default location it was gets the location
         *     attached to it earliest among its remaining ones as default (or none), and vendors lose it.
         */
        delete: operations["deleteLocation"];
        options?: never;
        head?: never;
        /**
         * Update a location
         * @description Changes the given fields of a location. Changing the `type` of a `Warehouse` location is a
         *     `400` user-input error (a warehouse stays a warehouse). `visibility` `ROLE` is rejected with
         *     a `400`: role-based visibility is configured only in the application. A tax code that is not
         *     the organization's is a `404`.
         */
        patch: operations["updateLocation"];
        trace?: never;
    };
    "/vendors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List vendors
         * @description Lists the organization's vendors, ordered by `createdAt` (then `id`) unless `orderBy` says otherwise. Deleted vendors are included only with `includeDeleted=true`.
         */
        get: operations["listVendors"];
        put?: never;
        /**
         * Create a vendor
         * @description Creates a vendor. The code must be unique among the organization's vendors that are not deleted.
         */
        post: operations["createVendor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/vendors/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create or update vendors in a batch
         * @description Creates or updates up to 1000 vendors in one transaction, each matched by `code` among the
         *     vendors that are not deleted (an existing one gets the new name). An empty list
         *     (`Invalid input, list cannot be empty`) or more than 1000 elements
         *     (`Invalid input, list cannot be greater than 1000`) is a `400` before any element is
         *     examined. If any element is invalid nothing is saved and one `400` names every rejected
         *     element in a line `Position <n>: ...` (zero-based), for example the same code twice. The
         *     response lists the vendors in input order.
         */
        post: operations["upsertVendors"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/vendors/{idOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The vendor's ID or its code.
                 * @example V-FERGUSON
                 */
                idOrCode: components["parameters"]["VendorIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a vendor
         * @description Reads one vendor by ID or code. A deleted vendor is found only with `includeDeleted=true` (otherwise `404`); when a code matches a live vendor and deleted ones, the live vendor is returned, otherwise the most recently deleted one.
         */
        get: operations["getVendor"];
        put?: never;
        post?: never;
        /**
         * Delete a vendor
         * @description Soft-deletes a vendor and returns it with `deletedAt` set. Its code can then be used by a new vendor.
         */
        delete: operations["deleteVendor"];
        options?: never;
        head?: never;
        /**
         * Update a vendor
         * @description Changes the given fields of a vendor that is not deleted. `code` renames it (the path may name
         *     the vendor by its ID or by its current code). `type` is the name of a vendor type: it is
         *     created when the organization has no type of that name, and set on the vendor; null removes the
         *     vendor's type.
         */
        patch: operations["updateVendor"];
        trace?: never;
    };
    "/vendors/{idOrCode}/location": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The vendor's ID or its code.
                 * @example V-FERGUSON
                 */
                idOrCode: components["parameters"]["VendorIdOrCode"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Attach a location to a vendor
         * @description Makes a location of the organization the vendor's location (replacing the previous one). A vendor or location that is not the organization's is a `404`.
         */
        post: operations["setVendorLocation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/global-phases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List global phases
         * @description Lists the organization's global phases (phases not linked to a job; deleted ones excluded),
         *     ordered by `createdAt` unless `orderBy` says otherwise. Job phases are listed by
         *     `GET /job-phases` and `GET /jobs/{jobIdOrCode}/phases`.
         */
        get: operations["listGlobalPhases"];
        put?: never;
        /**
         * Create a global phase
         * @description Creates a global phase (not linked to a job). `code` and `description` are required,
         *     `defaultGLCode` is optional (default null). The code must be unique among the organization's
         *     live global phases (409 otherwise).
         */
        post: operations["createGlobalPhase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/global-phases/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create or update phases in a batch
         * @description Creates or updates up to 1000 phases in one transaction. Each input is matched by its `code`
         *     within its scope: the global phases, or the phases of the job named by `jobId` or `jobCode`
         *     (supplying either makes the phase a job phase). A match is updated (`description`, and
         *     `defaultGLCode` when given); otherwise a phase is created.
         *
         *     An empty list (`Invalid input, list cannot be empty`) or more than 1000 elements
         *     (`Invalid input, list cannot be greater than 1000`) is rejected before any element is
         *     examined. Then every element is checked (required `code` and `description`, the job exists in
         *     the organization, `jobId` and `jobCode` name the same job, the same code does not appear twice
         *     in one scope); if any element is rejected nothing is saved and one 400 lists every rejected
         *     element in `errors[0].message`, one line per element, `Position <n>: <reason>` with the
         *     zero-based index in `inputs`.
         *
         *     Returns the phases in the order of `inputs`.
         */
        post: operations["upsertPhases"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/global-phases/{idOrCode}": {
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
         * Get a phase
         * @description Reads one phase. An ID matches any live phase of the organization; a code matches a global
         *     phase, or, when `jobCode` is given, a phase of that job (404 when the job does not exist).
         */
        get: operations["getGlobalPhase"];
        put?: never;
        post?: never;
        /**
         * Delete a phase
         * @description Soft-deletes a phase (`DELETE /global-phases/{id}`: the path takes the phase's ID, which
         *     matches any live phase of the organization; the code of a global phase is accepted too) and
         *     returns it with `deletedAt` set. Its code can then be used again in its scope.
         */
        delete: operations["deleteGlobalPhase"];
        options?: never;
        head?: never;
        /**
         * Update a phase
         * @description Changes the given fields of a phase (`code`, `description`, and also `defaultGLCode`). An ID
         *     matches any live phase of the organization, a code a global phase. Giving a new `code`
         *     renames the phase; it must stay unique within the phase's scope (409 otherwise).
         */
        patch: operations["updateGlobalPhase"];
        trace?: never;
    };
    "/job-phases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the phases of every job
         * @description Lists the phases linked to any job of the organization (global phases excluded, deleted ones
         *     excluded), ordered by `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listAllJobPhases"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobIdOrCode}/phases": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * List the phases of a job
         * @description Lists the phases of one job (deleted ones excluded), ordered by `createdAt` unless `orderBy`
         *     says otherwise. 404 when the job does not exist in the organization.
         */
        get: operations["listJobPhases"];
        put?: never;
        /**
         * Create a phase of a job
         * @description Creates a phase linked to the job in the path. `code` and `description` are required,
         *     `defaultGLCode` is optional (default null). The code must be unique among the job's live
         *     phases (409 otherwise); a global phase or another job's phase may have the same code.
         */
        post: operations["createJobPhase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobIdOrCode}/phases/{phaseIdOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a phase of a job
         * @description Reads one phase of the job in the path, by the phase's ID or code. A phase of another job is not found (404).
         */
        get: operations["getJobPhase"];
        put?: never;
        post?: never;
        /**
         * Delete a phase of a job
         * @description Soft-deletes a phase of the job and returns it with `deletedAt` set. Its code can then be used again in the job.
         */
        delete: operations["deleteJobPhase"];
        options?: never;
        head?: never;
        /**
         * Update a phase of a job
         * @description Changes the given fields of a phase of the job (`code`, `description`, `defaultGLCode`).
         *     A new `code` renames the phase; it must stay unique among the job's live phases (409).
         */
        patch: operations["updateJobPhase"];
        trace?: never;
    };
    "/global-categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List global cost categories
         * @description Lists the organization's global cost categories (no job, no phase). Deleted categories are excluded; the order is `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listGlobalCategories"];
        put?: never;
        /**
         * Create a global cost category
         * @description Creates a global cost category (no job, no phase). `code` and `description` are required; the code must be unique among the live
         *     categories of the scope (409 otherwise).
         */
        post: operations["createGlobalCategory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/global-categories/{idOrCode}": {
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
         * Get a global cost category
         * @description Reads one global cost category by ID or code (among the global categories).
         */
        get: operations["getGlobalCategory"];
        put?: never;
        post?: never;
        /**
         * Delete a global cost category
         * @description Soft-deletes a global cost category (among the global categories) and returns it with `deletedAt` set. The path takes the
         *     category's ID (its code is accepted too). The code can then be used again in the scope.
         */
        delete: operations["deleteGlobalCategory"];
        options?: never;
        head?: never;
        /**
         * Update a global cost category
         * @description Changes the given fields of a global cost category (among the global categories): `description`, and `code`, which renames it (the
         *     new code must be unique among the live categories of the scope; 409 otherwise).
         */
        patch: operations["updateGlobalCategory"];
        trace?: never;
    };
    "/phase-categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the phase-level cost categories
         * @description Lists every phase-level cost category of the organization (categories of a phase of a job). Deleted categories are excluded; the order is `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listAllPhaseCategories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobIdOrCode}/phases/{phaseIdOrCode}/categories": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * List the cost categories of a phase
         * @description Lists the cost categories of the phase in the path, which must be a phase of the job in the path (404 otherwise). Deleted categories are excluded; the order is `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listJobPhaseCategories"];
        put?: never;
        /**
         * Create a cost category of a phase
         * @description Creates a phase-level cost category of the phase in the path, which must be a phase of the job in the path (404 otherwise). `code` and `description` are required; the code must be unique among the live
         *     categories of the scope (409 otherwise).
         */
        post: operations["createJobPhaseCategory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobIdOrCode}/phases/{phaseIdOrCode}/categories/{categoryIdOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a cost category of a phase
         * @description Reads one cost category of a phase by ID or code among the categories of the phase (a phase of the job in the path).
         */
        get: operations["getJobPhaseCategory"];
        put?: never;
        post?: never;
        /**
         * Delete a cost category of a phase
         * @description Soft-deletes a cost category of a phase among the categories of the phase (a phase of the job in the path) and returns it with `deletedAt` set. The path takes the
         *     category's ID (its code is accepted too). The code can then be used again in the scope.
         */
        delete: operations["deleteJobPhaseCategory"];
        options?: never;
        head?: never;
        /**
         * Update a cost category of a phase
         * @description Changes the given fields of a cost category of a phase among the categories of the phase (a phase of the job in the path): `description`, and `code`, which renames it (the
         *     new code must be unique among the live categories of the scope; 409 otherwise).
         */
        patch: operations["updateJobPhaseCategory"];
        trace?: never;
    };
    "/job-categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the job-level cost categories
         * @description Lists every job-level cost category of the organization (categories of a job, not of one of its phases). Deleted categories are excluded; the order is `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listAllJobCategories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobIdOrCode}/categories": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * List the cost categories of a job
         * @description Lists the job-level cost categories of the job in the path (404 when the job does not exist). Deleted categories are excluded; the order is `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listJobCategories"];
        put?: never;
        /**
         * Create a cost category of a job
         * @description Creates a job-level cost category of the job in the path. `code` and `description` are required; the code must be unique among the live
         *     categories of the scope (409 otherwise).
         */
        post: operations["createJobCategory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobIdOrCode}/categories/{categoryIdOrCode}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        /**
         * Get a cost category of a job
         * @description Reads one cost category of a job by ID or code among the job-level categories of the job.
         */
        get: operations["getJobCategory"];
        put?: never;
        post?: never;
        /**
         * Delete a cost category of a job
         * @description Soft-deletes a cost category of a job among the job-level categories of the job and returns it with `deletedAt` set. The path takes the
         *     category's ID (its code is accepted too). The code can then be used again in the scope.
         */
        delete: operations["deleteJobCategory"];
        options?: never;
        head?: never;
        /**
         * Update a cost category of a job
         * @description Changes the given fields of a cost category of a job among the job-level categories of the job: `description`, and `code`, which renames it (the
         *     new code must be unique among the live categories of the scope; 409 otherwise).
         */
        patch: operations["updateJobCategory"];
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Lists the organization's users, ordered by `createdAt` unless `orderBy` says otherwise.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create a user
         * @description Creates a user and sends a registration e-mail to the address. `email`, `firstName`,
         *     `lastName` and `role` are required; `admin` defaults to false, `avatarUrl` and `phone` to
         *     null; `displayName` is "firstName lastName". The e-mail address must be unique in the
         *     organization regardless of case (409 naming `body.email`).
         *
         *     The registration e-mail is queued with the user in the same transaction and delivered
         *     asynchronously; a mail server that is down or rejects the message never fails this request
         *     (delivery is retried).
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{idOrEmail}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The user's ID or e-mail address (compared case-insensitively).
                 * @example maria.chen@summitridge.example
                 */
                idOrEmail: components["parameters"]["IdOrEmail"];
            };
            cookie?: never;
        };
        /**
         * Get a user
         * @description Reads one user by ID or by e-mail address (compared case-insensitively).
         */
        get: operations["getUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tags
         * @description Lists the organization's tags of every type, ordered by `createdAt` unless `orderBy` says
         *     otherwise. Tags are created and recolored through the tag operations of orders.
         */
        get: operations["listTags"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
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
         * @description State of a job.
         *     - `OPEN`: active
         *     - `CLOSED`: closed or cancelled
         * @example OPEN
         * @enum {string}
         */
        JobState: "OPEN" | "CLOSED";
        /** @description A group of jobs. */
        Group: {
            /**
             * @description Unique ID.
             * @example 6c5b4a39-2817-4f6e-9d5c-4b3a29181706
             */
            id: string;
            /**
             * @description Code, unique in the organization.
             * @example NORCAL
             */
            code: string | null;
            /**
             * @description Name.
             * @example Northern California projects
             */
            name: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-02-11T08:12:40.210Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-02-11T08:12:40.210Z
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @description Soft-delete time; null when not deleted.
             * @example null
             */
            deletedAt: string | null;
            /**
             * @description The user who created the group.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            createdById: string | null;
        };
        /** @description A job (project, work order or service job). */
        Job: {
            /**
             * @description Unique ID.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            id: string;
            /**
             * @description Code, unique in the organization.
             * @example J-1042
             */
            code: string;
            /**
             * @description Job name.
             * @example Riverside Medical Office Building
             */
            name: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-01-15T16:20:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-11-02T10:05:31.415Z
             */
            updatedAt: string;
            /**
             * @description Default delivery location of the job's orders.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            defaultLocationId: string | null;
            /**
             * @description Default tax code of the job's orders.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId: string | null;
            /**
             * Format: date-time
             * @description When the job started.
             * @example 2026-02-01T00:00:00.000Z
             */
            startDate: string | null;
            state: components["schemas"]["JobState"];
            /** @description Groups the job belongs to. */
            groups: components["schemas"]["Group"][];
        };
        /**
         * @description Kind of location.
         *     - `Billing`: billing address
         *     - `Branch`: branch office
         *     - `Jobsite`: a job site
         *     - `Office`: office
         *     - `Other`: any other place
         *     - `Warehouse`: warehouse (its type cannot be changed afterwards)
         *     - `Will_Call`: vendor counter where material is picked up
         * @example Jobsite
         * @enum {string}
         */
        LocationType: "Billing" | "Branch" | "Jobsite" | "Office" | "Other" | "Warehouse" | "Will_Call";
        /**
         * @description Opaque data of the integrating system (for example its own location key); stored as given and not interpreted by the service.
         * @example {
         *       "erpLocationKey": "SITE-1042"
         *     }
         */
        LocationIntegrationDataInput: {
            [key: string]: unknown;
        };
        /**
         * @description A job's default location given inline. On create it creates the location, attaches it to the job
         *     and makes it the default. On update (PATCH, batch upsert of an existing job that has a default
         *     location) it changes the given fields of the job's current default location; fields left out keep
         *     their value.
         */
        DefaultLocationInput: {
            /**
             * @description Name.
             * @example Riverside MOB jobsite
             */
            name: string;
            /**
             * @description First address line.
             * @example 4100 Riverside Drive
             */
            addressLine1?: string | null;
            /**
             * @description Second address line.
             * @example Gate 3
             */
            addressLine2?: string | null;
            /**
             * @description City.
             * @example Sacramento
             */
            city?: string | null;
            /**
             * @description State or province.
             * @example CA
             */
            state?: string | null;
            /**
             * @description Postal code.
             * @example 95833
             */
            zipcode?: string | null;
            /**
             * @description Directions for drivers.
             * @example Enter from Garden Hwy; deliveries at the north laydown yard.
             */
            directions?: string | null;
            /**
             * @description Phone.
             * @example +1 916 555 0142
             */
            phone?: string | null;
            /**
             * @description ID of a tax code of the organization, applied when the location is an order's delivery location.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId?: string | null;
            type?: components["schemas"]["LocationType"];
            integrationData?: components["schemas"]["LocationIntegrationDataInput"];
        };
        /** @description A job to create. Give at most one of `defaultLocationId` and `defaultLocation`. */
        JobCreate: {
            /**
             * @description Code, unique in the organization.
             * @example J-1042
             */
            code: string;
            /**
             * @description Job name.
             * @example Riverside Medical Office Building
             */
            name: string;
            /**
             * @description ID of an existing location of the organization; it is attached to the job and becomes its default.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            defaultLocationId?: string | null;
            defaultLocation?: components["schemas"]["DefaultLocationInput"];
            /**
             * @description ID of a tax code of the organization.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId?: string | null;
            /**
             * Format: date-time
             * @description When the job started.
             * @example 2026-02-01T00:00:00.000Z
             */
            startDate?: string | null;
            state?: components["schemas"]["JobState"];
            /** @description IDs of groups of the organization the job belongs to. */
            groupIds?: string[];
        };
        /** @description One job of a batch upsert, matched by `code`: an existing job is updated (fields left out keep their value), otherwise it is created. Give at most one of `defaultLocationId` and `defaultLocation`. */
        JobUpsert: {
            /**
             * @description Code, unique in the organization.
             * @example J-1042
             */
            code: string;
            /**
             * @description Job name.
             * @example Riverside Medical Office Building
             */
            name: string;
            /**
             * @description ID of an existing location of the organization; it is attached to the job and becomes its default.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            defaultLocationId?: string | null;
            defaultLocation?: components["schemas"]["DefaultLocationInput"];
            /**
             * @description ID of a tax code of the organization.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId?: string | null;
            /**
             * Format: date-time
             * @description When the job started.
             * @example 2026-02-01T00:00:00.000Z
             */
            startDate?: string | null;
            state?: components["schemas"]["JobState"];
            /** @description IDs of groups of the organization the job belongs to. */
            groupIds?: string[];
        };
        /** @description Jobs to create or update, matched by code; between 1 and 1000 elements. */
        JobBatch: {
            /** @description The jobs, at most 1000. The response lists them in the same order. */
            inputs: components["schemas"]["JobUpsert"][];
        };
        /**
         * @description Changes to a job; only the given fields change. Giving `code` renames the job (whether the path
         *     names it by ID or by its current code). Give at most one of `defaultLocationId` and
         *     `defaultLocation`. `groupIds` replaces the job's groups.
         */
        JobUpdate: {
            /**
             * @description New code, unique in the organization.
             * @example J-1042A
             */
            code?: string;
            /**
             * @description Job name.
             * @example Riverside Medical Office Building, Phase 2
             */
            name?: string;
            /**
             * @description ID of a location of the organization to attach and make the default; null clears the default.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            defaultLocationId?: string | null;
            defaultLocation?: components["schemas"]["DefaultLocationInput"];
            /**
             * @description ID of a tax code of the organization; null clears it.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId?: string | null;
            /**
             * Format: date-time
             * @description When the job started.
             * @example 2026-02-01T00:00:00.000Z
             */
            startDate?: string | null;
            state?: components["schemas"]["JobState"];
            /** @description IDs of groups of the organization; replaces the job's groups. */
            groupIds?: string[];
        };
        /**
         * @description Who sees the location when choosing a delivery location.
         *     - `ALL`: every user of the organization
         *     - `ROLE`: users of chosen roles; configured only in the application (rejected by the API)
         * @example ALL
         * @enum {string}
         */
        LocationVisibility: "ALL" | "ROLE";
        /** @description A reference to a job. */
        JobRef: {
            /**
             * @description The job's ID.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            id: string;
            /**
             * @description The job's code.
             * @example J-1042
             */
            code: string;
            /**
             * @description The job's name.
             * @example Riverside Medical Office Building
             */
            name: string;
        };
        /** @description A reference to a vendor. */
        VendorRef: {
            /**
             * @description The vendor's ID.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            id: string;
            /**
             * @description The vendor's code.
             * @example V-FERGUSON
             */
            code: string;
            /**
             * @description The vendor's name.
             * @example Ferguson Enterprises
             */
            name: string;
        };
        /** @description A location (job site, office, warehouse, ...). */
        Location: {
            /**
             * @description Unique ID.
             * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
             */
            id: string;
            /**
             * @description Name.
             * @example Riverside MOB jobsite
             */
            name: string;
            /**
             * @description First address line.
             * @example 4100 Riverside Drive
             */
            addressLine1: string | null;
            /**
             * @description Second address line.
             * @example Gate 3
             */
            addressLine2: string | null;
            /**
             * @description City.
             * @example Sacramento
             */
            city: string | null;
            /**
             * @description State or province.
             * @example CA
             */
            state: string | null;
            /**
             * @description Postal code.
             * @example 95833
             */
            zipcode: string | null;
            /**
             * @description Directions for drivers.
             * @example Enter from Garden Hwy; deliveries at the north laydown yard.
             */
            directions: string | null;
            /**
             * @description Phone.
             * @example +1 916 555 0142
             */
            phone: string | null;
            type: components["schemas"]["LocationType"];
            /**
             * @description Tax code applied when the location is an order's delivery location.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId: string | null;
            /**
             * Format: double
             * @description Latitude in degrees; null when unknown.
             * @example 38.6012
             */
            latitude: number | null;
            /**
             * Format: double
             * @description Longitude in degrees; null when unknown.
             * @example -121.5087
             */
            longitude: number | null;
            visibility: components["schemas"]["LocationVisibility"];
            /** @description Jobs the location is attached to (id, code and name). */
            jobs: components["schemas"]["JobRef"][];
            /** @description Vendors the location is attached to (id, code and name). */
            vendors: components["schemas"]["VendorRef"][];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-01-15T16:21:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-01-15T16:21:00.000Z
             */
            updatedAt: string;
        };
        /**
         * @description Role of a user.
         *     - `BackOffice`: office access, not listed as purchasing agent
         *     - `Field`: jobsite access
         *     - `FieldOrdering`: jobsite access, may send orders directly to vendors
         *     - `Procurement`: office access
         *     - `Warehouse`: warehouse module access
         * @example Procurement
         * @enum {string}
         */
        UserRole: "BackOffice" | "Field" | "FieldOrdering" | "Procurement" | "Warehouse";
        /** @description A user of the organization. */
        User: {
            /**
             * @description Unique ID.
             * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
             */
            id: string;
            /**
             * @description Admins may perform any operation, including modifying jobs, orders and users.
             * @example false
             */
            admin: boolean;
            /**
             * @description URL of a png or jpeg image.
             * @example https://files.procurement.dev/avatars/maria-chen.png
             */
            avatarUrl: string | null;
            /**
             * @description Display name.
             * @example Maria Chen
             */
            displayName: string;
            /**
             * @description E-mail address, unique in the organization.
             * @example maria.chen@summitridge.example
             */
            email: string;
            /**
             * @description First name.
             * @example Maria
             */
            firstName: string;
            /**
             * @description Last name.
             * @example Chen
             */
            lastName: string;
            /**
             * @description Phone.
             * @example +1 916 555 0117
             */
            phone: string | null;
            role: components["schemas"]["UserRole"];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-01-12T09:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-01-12T09:00:00.000Z
             */
            updatedAt: string;
        };
        /** @description The number the job's next purchase order will get. */
        NextPurchaseOrderNumber: {
            /**
             * Format: int32
             * @description The job's counter, skipping numbers its live purchase orders already carry.
             * @example 1051
             */
            nextPurchaseOrderNumber: number;
        };
        /** @description A new value for the job's purchase order counter. */
        PurchaseOrderCounterUpdate: {
            /**
             * Format: int32
             * @description The number the job's next purchase order should get; if it is already in use, the counter keeps incrementing by 1 until a free number is found.
             * @example 1050
             */
            nextCounter: number;
        };
        /** @description A job with its purchase order numbering. */
        JobWithCounter: components["schemas"]["Job"] & {
            /**
             * @description Whether the job has job phases (that are not deleted).
             * @example true
             */
            hasPhaseCodes: boolean;
            /**
             * Format: int32
             * @description The job's counter after the change; the number its next purchase order gets.
             * @example 1051
             */
            nextPurchaseOrderCounter: number;
        };
        /** @description A group to create. */
        GroupCreate: {
            /**
             * @description Name.
             * @example Northern California projects
             */
            name: string;
            /**
             * @description Code, unique in the organization (optional).
             * @example NORCAL
             */
            code?: string | null;
        };
        /** @description Changes to a group; only the given fields change. */
        GroupUpdate: {
            /**
             * @description Name.
             * @example Northern California and Nevada projects
             */
            name?: string;
            /**
             * @description New code, unique in the organization; null removes it.
             * @example NORCAL-NV
             */
            code?: string | null;
        };
        /** @description A location to create. Address fields, directions, phone, tax code and coordinates default to null; `visibility` defaults to `ALL` (`ROLE` is rejected; role-based visibility is configured only in the application). */
        LocationCreate: {
            /**
             * @description Name.
             * @example Riverside MOB jobsite
             */
            name: string;
            type: components["schemas"]["LocationType"];
            /**
             * @description First address line.
             * @example 4100 Riverside Drive
             */
            addressLine1?: string | null;
            /**
             * @description Second address line.
             * @example Gate 3
             */
            addressLine2?: string | null;
            /**
             * @description City.
             * @example Sacramento
             */
            city?: string | null;
            /**
             * @description State or province.
             * @example CA
             */
            state?: string | null;
            /**
             * @description Postal code.
             * @example 95833
             */
            zipcode?: string | null;
            /**
             * @description Directions for drivers.
             * @example Enter from Garden Hwy; deliveries at the north laydown yard.
             */
            directions?: string | null;
            /**
             * @description Phone.
             * @example +1 916 555 0142
             */
            phone?: string | null;
            /**
             * @description ID of a tax code of the organization, applied when the location is an order's delivery location.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId?: string | null;
            /**
             * Format: double
             * @description Latitude in degrees.
             * @example 38.6012
             */
            latitude?: number | null;
            /**
             * Format: double
             * @description Longitude in degrees.
             * @example -121.5087
             */
            longitude?: number | null;
            visibility?: components["schemas"]["LocationVisibility"];
        };
        /** @description A deleted location, with the jobs and vendors it was attached to when it was deleted. */
        LocationDeleted: components["schemas"]["Location"] & {
            /**
             * Format: date-time
             * @description When the location was deleted.
             * @example 2026-11-21T10:00:00.000Z
             */
            deletedAt: string;
        };
        /** @description Changes to a location; only the given fields change. The type of a `Warehouse` location cannot be changed; `visibility` `ROLE` is rejected. */
        LocationUpdate: {
            /**
             * @description Name.
             * @example Riverside MOB jobsite (north gate)
             */
            name?: string;
            type?: components["schemas"]["LocationType"];
            /**
             * @description First address line.
             * @example 4100 Riverside Drive
             */
            addressLine1?: string | null;
            /**
             * @description Second address line.
             * @example Gate 3
             */
            addressLine2?: string | null;
            /**
             * @description City.
             * @example Sacramento
             */
            city?: string | null;
            /**
             * @description State or province.
             * @example CA
             */
            state?: string | null;
            /**
             * @description Postal code.
             * @example 95833
             */
            zipcode?: string | null;
            /**
             * @description Directions for drivers.
             * @example Enter from Garden Hwy; deliveries at the north laydown yard.
             */
            directions?: string | null;
            /**
             * @description Phone.
             * @example +1 916 555 0142
             */
            phone?: string | null;
            /**
             * @description ID of a tax code of the organization, applied when the location is an order's delivery location.
             * @example 5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f
             */
            defaultTaxCodeId?: string | null;
            /**
             * Format: double
             * @description Latitude in degrees.
             * @example 38.6012
             */
            latitude?: number | null;
            /**
             * Format: double
             * @description Longitude in degrees.
             * @example -121.5087
             */
            longitude?: number | null;
            visibility?: components["schemas"]["LocationVisibility"];
        };
        /** @description A location without its jobs and vendors (a vendor's location); null when there is none. */
        LocationSummary: {
            /**
             * @description Unique ID.
             * @example 8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a
             */
            id: string;
            /**
             * @description Name.
             * @example Ferguson West Sacramento branch
             */
            name: string;
            /**
             * @description First address line.
             * @example 1200 Industrial Blvd
             */
            addressLine1: string | null;
            /**
             * @description Second address line.
             * @example null
             */
            addressLine2: string | null;
            /**
             * @description City.
             * @example West Sacramento
             */
            city: string | null;
            /**
             * @description State or province.
             * @example CA
             */
            state: string | null;
            /**
             * @description Postal code.
             * @example 95691
             */
            zipcode: string | null;
            /**
             * @description Directions.
             * @example null
             */
            directions: string | null;
            /**
             * @description Phone.
             * @example +1 916 555 0199
             */
            phone: string | null;
            type: components["schemas"]["LocationType"];
            /**
             * @description Tax code applied when the location is an order's delivery location.
             * @example null
             */
            defaultTaxCodeId: string | null;
            /**
             * Format: double
             * @description Latitude in degrees; null when unknown.
             * @example null
             */
            latitude: number | null;
            /**
             * Format: double
             * @description Longitude in degrees; null when unknown.
             * @example null
             */
            longitude: number | null;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-01-20T12:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-01-20T12:00:00.000Z
             */
            updatedAt: string;
        } | null;
        /** @description A kind of vendor; null when the vendor has none. */
        VendorType: {
            /**
             * @description Unique ID.
             * @example 7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b
             */
            id: string;
            /**
             * @description Name, unique in the organization.
             * @example Electrical supply
             */
            name: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-01-20T12:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-01-20T12:00:00.000Z
             */
            updatedAt: string;
        } | null;
        /** @description A vendor (supplier). */
        Vendor: {
            /**
             * @description Unique ID.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            id: string;
            /**
             * @description Code, unique in the organization.
             * @example V-FERGUSON
             */
            code: string;
            /**
             * @description Name.
             * @example Ferguson Enterprises
             */
            name: string;
            location: components["schemas"]["LocationSummary"];
            type: components["schemas"]["VendorType"];
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-01-20T12:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-09-30T14:11:09.000Z
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @description Soft-delete time; null when not deleted.
             * @example null
             */
            deletedAt: string | null;
        };
        /** @description A vendor to create. */
        VendorCreate: {
            /**
             * @description Code, unique among the organization's vendors that are not deleted.
             * @example V-FERGUSON
             */
            code: string;
            /**
             * @description Name.
             * @example Ferguson Enterprises
             */
            name: string;
        };
        /** @description One vendor of a batch upsert, matched by `code` among vendors that are not deleted; an existing one gets the new name, otherwise it is created. */
        VendorUpsert: {
            /**
             * @description Code, unique among the organization's vendors that are not deleted.
             * @example V-FERGUSON
             */
            code: string;
            /**
             * @description Name.
             * @example Ferguson Enterprises
             */
            name: string;
        };
        /** @description Vendors to create or update, matched by code; between 1 and 1000 elements. */
        VendorBatch: {
            /** @description The vendors, at most 1000. The response lists them in the same order. */
            inputs: components["schemas"]["VendorUpsert"][];
        };
        /** @description Changes to a vendor; only the given fields change. Giving `code` renames the vendor. */
        VendorUpdate: {
            /**
             * @description New code, unique among the organization's vendors that are not deleted.
             * @example V-FERGUSON-WS
             */
            code?: string;
            /**
             * @description Name.
             * @example Ferguson Enterprises West Sacramento
             */
            name?: string;
            /**
             * @description Name of a vendor type; created when the organization has none of that name. Null removes the vendor's type.
             * @example Plumbing supply
             */
            type?: string | null;
        };
        /** @description The location to attach to a vendor. */
        VendorLocationInput: {
            /**
             * @description ID of a location of the organization; it replaces the vendor's current location.
             * @example 8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a
             */
            locationId: string;
        };
        /** @description A phase of the flat work-breakdown structure, global (no job) or linked to one job. */
        Phase: {
            /**
             * @description Unique phase ID.
             * @example 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-02-03T16:20:00.000Z
             */
            createdAt: string;
            /**
             * @description Human-readable code, unique among the live phases of its scope (the global phases, or the phases of one job).
             * @example 03-300
             */
            code: string;
            /**
             * @description Description.
             * @example Cast-in-place concrete
             */
            description: string;
            /**
             * @description ID of the linked job; null for a global phase.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId: string | null;
            /**
             * @description Code of the linked job; null for a global phase.
             * @example J-1042
             */
            jobCode: string | null;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-02-03T16:20:00.000Z
             */
            updatedAt: string;
            /**
             * @description Default GL code for the phase; null when none.
             * @example 5100-CONC
             */
            defaultGLCode: string | null;
            /**
             * Format: date-time
             * @description When the phase was deleted; null when not deleted.
             * @example null
             */
            deletedAt: string | null;
        };
        /** @description A phase to create; its scope (global or one job) comes from the path. */
        PhaseCreate: {
            /**
             * @description Code, unique among the live phases of the scope.
             * @example 03-300
             */
            code: string;
            /**
             * @description Description.
             * @example Cast-in-place concrete
             */
            description: string;
            /**
             * @description Default GL code for the phase (default null).
             * @example 5100-CONC
             */
            defaultGLCode?: string | null;
        };
        /**
         * @description One phase of a batch upsert (`UpsertInput`). `code` and `description` are required; they are
         *     checked by the operation itself so that a missing one is reported as `Position <n>: ...` like
         *     every other rejected element. Giving `jobId` or `jobCode` makes it a phase of that job.
         */
        PhaseUpsert: {
            /**
             * @description Code (required); the phase is matched by this code within its scope.
             * @example 03-300
             */
            code?: string;
            /**
             * @description Description (required).
             * @example Cast-in-place concrete
             */
            description?: string;
            /**
             * @description Code of the job the phase belongs to; omit (with `jobId`) for a global phase.
             * @example J-1042
             */
            jobCode?: string | null;
            /**
             * @description ID of the job the phase belongs to; when given with `jobCode`, both must name the same job.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId?: string | null;
            /**
             * @description Default GL code. Omitted or null keeps the stored value of an existing phase (null for a new one).
             * @example 5100-CONC
             */
            defaultGLCode?: string | null;
        };
        /** @description The body of a phase batch upsert. */
        PhaseBatch: {
            /**
             * @description The phases to create or update, at most 1000 (an empty list or more than 1000 elements is
             *     rejected before any element is examined).
             */
            inputs: components["schemas"]["PhaseUpsert"][];
        };
        /** @description Changes to a phase; only the given fields change. The phase keeps its scope. */
        PhaseUpdate: {
            /**
             * @description New code, unique among the live phases of the scope.
             * @example 03-310
             */
            code?: string;
            /**
             * @description Description.
             * @example Cast-in-place concrete, elevated slabs
             */
            description?: string;
            /**
             * @description Default GL code for the phase; null removes it.
             * @example 5110-CONC
             */
            defaultGLCode?: string | null;
        };
        /**
         * @description A cost category. Scopes: global (no job, no phase), job-level (a job), phase-level (a phase of a
         *     job). `jobId`/`jobCode` are set for job- and phase-level categories, `phaseId`/`phaseCode` for
         *     phase-level ones; null where not applicable.
         */
        CostCategory: {
            /**
             * @description Unique ID.
             * @example 7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d
             */
            id: string;
            /**
             * Format: date-time
             * @description Creation time.
             * @example 2026-02-04T11:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Human-readable code, unique among the live categories of its scope.
             * @example MAT
             */
            code: string;
            /**
             * @description Description.
             * @example Materials
             */
            description: string;
            /**
             * Format: date-time
             * @description Last modification time.
             * @example 2026-02-04T11:00:00.000Z
             */
            updatedAt: string;
            /**
             * @description ID of the associated job (job- and phase-level categories); null for a global category.
             * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
             */
            jobId: string | null;
            /**
             * @description Code of the associated job; null for a global category.
             * @example J-1042
             */
            jobCode: string | null;
            /**
             * @description ID of the associated phase (phase-level categories only); null otherwise.
             * @example 5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
             */
            phaseId: string | null;
            /**
             * @description Code of the associated phase (phase-level categories only); null otherwise.
             * @example 03-300
             */
            phaseCode: string | null;
            /**
             * Format: date-time
             * @description When the category was deleted; null when not deleted.
             * @example null
             */
            deletedAt: string | null;
        };
        /** @description A cost category to create; its scope (global, job, or phase of a job) comes from the path. */
        CostCategoryCreate: {
            /**
             * @description Code, unique among the live categories of the scope.
             * @example MAT
             */
            code: string;
            /**
             * @description Description.
             * @example Materials
             */
            description: string;
        };
        /** @description Changes to a cost category; only the given fields change. The category keeps its scope. */
        CostCategoryUpdate: {
            /**
             * @description New code, unique among the live categories of the scope.
             * @example MAT-S
             */
            code?: string;
            /**
             * @description Description.
             * @example Materials and supplies
             */
            description?: string;
        };
        /** @description A user to create. The display name is formed from the first and last name. */
        UserCreate: {
            /**
             * Format: email
             * @description E-mail address, unique in the organization regardless of case; the registration e-mail is sent to it.
             * @example maria.chen@summitridge.example
             */
            email: string;
            /**
             * @description First name.
             * @example Maria
             */
            firstName: string;
            /**
             * @description Last name.
             * @example Chen
             */
            lastName: string;
            role: components["schemas"]["UserRole"];
            /**
             * @description Whether the user is an admin (default false).
             * @default false
             * @example false
             */
            admin: boolean;
            /**
             * @description URL of a png or jpeg image (default null).
             * @example https://files.procurement.dev/avatars/maria-chen.png
             */
            avatarUrl?: string | null;
            /**
             * @description Phone (default null).
             * @example +1 916 555 0117
             */
            phone?: string | null;
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
        /** @description Where a bulk page is in the whole filtered set. */
        BulkPageMeta: {
            /**
             * Format: int32
             * @description Number of objects matching the filters (all pages together).
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
             * @description The offset applied (0 when a cursor was given).
             * @example 0
             */
            offset: number;
            /**
             * @description Only when the request used `cursor` (our addition): pass it as `cursor` to get the next page
             *     in the same order; null when this page is not full, so there is nothing after it.
             * @example WyJjcmVhdGVkQXQiLCJERVNDIiwiMjAyNi0xMS0yMVQxMDowMDowMC4wMDArMDA6MDAiLCI3ZDFjMmY1ZS00YjhhLTRjMWUtOWYzZC0yYTZiOGMwZTFmNDIiXQ
             */
            nextCursor?: string | null;
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
            meta: components["schemas"]["BulkPageMeta"];
            /** @description The items of the page. */
            data: components["schemas"]["BulkItem"][];
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
            meta: components["schemas"]["BulkPageMeta"];
            /** @description The page of items. */
            data: components["schemas"]["BulkInvoiceItem"][];
        };
    };
    responses: {
        /** @description Invalid input (a field, query parameter or body failed validation); every problem is named in errors. */
        BadRequest: {
            headers: {
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
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
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
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
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
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
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
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
        /** @description The operation is not enabled for the organization. */
        Forbidden: {
            headers: {
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "/problems/forbidden",
                 *       "title": "Forbidden",
                 *       "status": 403,
                 *       "detail": "This operation must be enabled by a support request.",
                 *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                 *       "errors": [
                 *         {
                 *           "message": "This operation must be enabled by a support request."
                 *         }
                 *       ]
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description A rate limit was exceeded (see `RateLimit-Policy` and `RateLimit`): retry after `Retry-After`
         *     seconds. Also answered by the token endpoint after 10 failed client authentications in a
         *     minute for one client id from one address.
         */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "/problems/too-many-requests",
                 *       "title": "Too many requests",
                 *       "status": 429,
                 *       "detail": "Rate limit exceeded (org-burst). Retry in 1 s.",
                 *       "requestId": "3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11",
                 *       "errors": [
                 *         {
                 *           "message": "Rate limit exceeded (org-burst). Retry in 1 s."
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
         * @description Field to order jobs by (default `createdAt`).
         * @example code
         */
        JobOrderBy: "code" | "createdAt" | "id" | "name" | "startDate" | "updatedAt";
        /** @description Conditions on jobs; see "Filters and pagination". */
        JobFilter: {
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
             * @description Matches when `name` equals the value.
             * @example J-1042
             */
            name?: string;
            /**
             * @description Matches when `name` does not equal the value.
             * @example J-1042
             */
            name_not?: string;
            /** @description Matches when `name` is one of the listed values: repeat `filter[name_in][]=` or give one comma-separated value. */
            name_in?: string[];
            /** @description Matches when `name` is none of the listed values: repeat `filter[name_not_in][]=` or give one comma-separated value. */
            name_not_in?: string[];
            /**
             * @description Matches when `name` is less than the value.
             * @example J-1042
             */
            name_lt?: string;
            /**
             * @description Matches when `name` is less than or equal to the value.
             * @example J-1042
             */
            name_lte?: string;
            /**
             * @description Matches when `name` is greater than the value.
             * @example J-1042
             */
            name_gt?: string;
            /**
             * @description Matches when `name` is greater than or equal to the value.
             * @example J-1042
             */
            name_gte?: string;
            /**
             * @description Matches when `name` contains (case-insensitive) the value.
             * @example J-1042
             */
            name_contains?: string;
            /**
             * @description Matches when `name` starts with (case-insensitive) the value.
             * @example J-1042
             */
            name_starts_with?: string;
            /**
             * @description Matches when `name` ends with (case-insensitive) the value.
             * @example J-1042
             */
            name_ends_with?: string;
            /**
             * Format: date-time
             * @description Matches when `startDate` equals the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            startDate?: string;
            /**
             * Format: date-time
             * @description Matches when `startDate` does not equal the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            startDate_not?: string;
            /** @description Matches when `startDate` is one of the listed values: repeat `filter[startDate_in][]=` or give one comma-separated value. */
            startDate_in?: string[];
            /** @description Matches when `startDate` is none of the listed values: repeat `filter[startDate_not_in][]=` or give one comma-separated value. */
            startDate_not_in?: string[];
            /**
             * Format: date-time
             * @description Matches when `startDate` is less than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            startDate_lt?: string;
            /**
             * Format: date-time
             * @description Matches when `startDate` is less than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            startDate_lte?: string;
            /**
             * Format: date-time
             * @description Matches when `startDate` is greater than the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            startDate_gt?: string;
            /**
             * Format: date-time
             * @description Matches when `startDate` is greater than or equal to the value.
             * @example 2026-11-01T00:00:00.000Z
             */
            startDate_gte?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example OPEN
             * @enum {string}
             */
            state?: "OPEN" | "CLOSED";
            /**
             * @description Matches when `state` does not equal the value.
             * @example OPEN
             * @enum {string}
             */
            state_not?: "OPEN" | "CLOSED";
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: ("OPEN" | "CLOSED")[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: ("OPEN" | "CLOSED")[];
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
         * @description The job's ID or its code.
         * @example J-1042
         */
        JobIdOrCodeParam: string;
        /**
         * @description Field to order locations by (default `createdAt`). `displayName` orders by the location's `name`.
         * @example displayName
         */
        LocationOrderBy: "createdAt" | "displayName" | "id" | "updatedAt";
        /** @description Conditions on locations; see "Filters and pagination". */
        LocationFilter: {
            /**
             * @description Matches when `addressLine1` equals the value.
             * @example J-1042
             */
            addressLine1?: string;
            /**
             * @description Matches when `addressLine1` does not equal the value.
             * @example J-1042
             */
            addressLine1_not?: string;
            /** @description Matches when `addressLine1` is one of the listed values: repeat `filter[addressLine1_in][]=` or give one comma-separated value. */
            addressLine1_in?: string[];
            /** @description Matches when `addressLine1` is none of the listed values: repeat `filter[addressLine1_not_in][]=` or give one comma-separated value. */
            addressLine1_not_in?: string[];
            /**
             * @description Matches when `addressLine1` is less than the value.
             * @example J-1042
             */
            addressLine1_lt?: string;
            /**
             * @description Matches when `addressLine1` is less than or equal to the value.
             * @example J-1042
             */
            addressLine1_lte?: string;
            /**
             * @description Matches when `addressLine1` is greater than the value.
             * @example J-1042
             */
            addressLine1_gt?: string;
            /**
             * @description Matches when `addressLine1` is greater than or equal to the value.
             * @example J-1042
             */
            addressLine1_gte?: string;
            /**
             * @description Matches when `addressLine1` contains (case-insensitive) the value.
             * @example J-1042
             */
            addressLine1_contains?: string;
            /**
             * @description Matches when `addressLine1` starts with (case-insensitive) the value.
             * @example J-1042
             */
            addressLine1_starts_with?: string;
            /**
             * @description Matches when `addressLine1` ends with (case-insensitive) the value.
             * @example J-1042
             */
            addressLine1_ends_with?: string;
            /**
             * @description Matches when `addressLine2` equals the value.
             * @example J-1042
             */
            addressLine2?: string;
            /**
             * @description Matches when `addressLine2` does not equal the value.
             * @example J-1042
             */
            addressLine2_not?: string;
            /** @description Matches when `addressLine2` is one of the listed values: repeat `filter[addressLine2_in][]=` or give one comma-separated value. */
            addressLine2_in?: string[];
            /** @description Matches when `addressLine2` is none of the listed values: repeat `filter[addressLine2_not_in][]=` or give one comma-separated value. */
            addressLine2_not_in?: string[];
            /**
             * @description Matches when `addressLine2` is less than the value.
             * @example J-1042
             */
            addressLine2_lt?: string;
            /**
             * @description Matches when `addressLine2` is less than or equal to the value.
             * @example J-1042
             */
            addressLine2_lte?: string;
            /**
             * @description Matches when `addressLine2` is greater than the value.
             * @example J-1042
             */
            addressLine2_gt?: string;
            /**
             * @description Matches when `addressLine2` is greater than or equal to the value.
             * @example J-1042
             */
            addressLine2_gte?: string;
            /**
             * @description Matches when `addressLine2` contains (case-insensitive) the value.
             * @example J-1042
             */
            addressLine2_contains?: string;
            /**
             * @description Matches when `addressLine2` starts with (case-insensitive) the value.
             * @example J-1042
             */
            addressLine2_starts_with?: string;
            /**
             * @description Matches when `addressLine2` ends with (case-insensitive) the value.
             * @example J-1042
             */
            addressLine2_ends_with?: string;
            /**
             * @description Matches when `city` equals the value.
             * @example J-1042
             */
            city?: string;
            /**
             * @description Matches when `city` does not equal the value.
             * @example J-1042
             */
            city_not?: string;
            /** @description Matches when `city` is one of the listed values: repeat `filter[city_in][]=` or give one comma-separated value. */
            city_in?: string[];
            /** @description Matches when `city` is none of the listed values: repeat `filter[city_not_in][]=` or give one comma-separated value. */
            city_not_in?: string[];
            /**
             * @description Matches when `city` is less than the value.
             * @example J-1042
             */
            city_lt?: string;
            /**
             * @description Matches when `city` is less than or equal to the value.
             * @example J-1042
             */
            city_lte?: string;
            /**
             * @description Matches when `city` is greater than the value.
             * @example J-1042
             */
            city_gt?: string;
            /**
             * @description Matches when `city` is greater than or equal to the value.
             * @example J-1042
             */
            city_gte?: string;
            /**
             * @description Matches when `city` contains (case-insensitive) the value.
             * @example J-1042
             */
            city_contains?: string;
            /**
             * @description Matches when `city` starts with (case-insensitive) the value.
             * @example J-1042
             */
            city_starts_with?: string;
            /**
             * @description Matches when `city` ends with (case-insensitive) the value.
             * @example J-1042
             */
            city_ends_with?: string;
            /**
             * @description Matches when `state` equals the value.
             * @example J-1042
             */
            state?: string;
            /**
             * @description Matches when `state` does not equal the value.
             * @example J-1042
             */
            state_not?: string;
            /** @description Matches when `state` is one of the listed values: repeat `filter[state_in][]=` or give one comma-separated value. */
            state_in?: string[];
            /** @description Matches when `state` is none of the listed values: repeat `filter[state_not_in][]=` or give one comma-separated value. */
            state_not_in?: string[];
            /**
             * @description Matches when `state` is less than the value.
             * @example J-1042
             */
            state_lt?: string;
            /**
             * @description Matches when `state` is less than or equal to the value.
             * @example J-1042
             */
            state_lte?: string;
            /**
             * @description Matches when `state` is greater than the value.
             * @example J-1042
             */
            state_gt?: string;
            /**
             * @description Matches when `state` is greater than or equal to the value.
             * @example J-1042
             */
            state_gte?: string;
            /**
             * @description Matches when `state` contains (case-insensitive) the value.
             * @example J-1042
             */
            state_contains?: string;
            /**
             * @description Matches when `state` starts with (case-insensitive) the value.
             * @example J-1042
             */
            state_starts_with?: string;
            /**
             * @description Matches when `state` ends with (case-insensitive) the value.
             * @example J-1042
             */
            state_ends_with?: string;
            /**
             * @description Matches when `zipcode` equals the value.
             * @example J-1042
             */
            zipcode?: string;
            /**
             * @description Matches when `zipcode` does not equal the value.
             * @example J-1042
             */
            zipcode_not?: string;
            /** @description Matches when `zipcode` is one of the listed values: repeat `filter[zipcode_in][]=` or give one comma-separated value. */
            zipcode_in?: string[];
            /** @description Matches when `zipcode` is none of the listed values: repeat `filter[zipcode_not_in][]=` or give one comma-separated value. */
            zipcode_not_in?: string[];
            /**
             * @description Matches when `zipcode` is less than the value.
             * @example J-1042
             */
            zipcode_lt?: string;
            /**
             * @description Matches when `zipcode` is less than or equal to the value.
             * @example J-1042
             */
            zipcode_lte?: string;
            /**
             * @description Matches when `zipcode` is greater than the value.
             * @example J-1042
             */
            zipcode_gt?: string;
            /**
             * @description Matches when `zipcode` is greater than or equal to the value.
             * @example J-1042
             */
            zipcode_gte?: string;
            /**
             * @description Matches when `zipcode` contains (case-insensitive) the value.
             * @example J-1042
             */
            zipcode_contains?: string;
            /**
             * @description Matches when `zipcode` starts with (case-insensitive) the value.
             * @example J-1042
             */
            zipcode_starts_with?: string;
            /**
             * @description Matches when `zipcode` ends with (case-insensitive) the value.
             * @example J-1042
             */
            zipcode_ends_with?: string;
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
             * @description Matches when `name` equals the value.
             * @example J-1042
             */
            name?: string;
            /**
             * @description Matches when `name` does not equal the value.
             * @example J-1042
             */
            name_not?: string;
            /** @description Matches when `name` is one of the listed values: repeat `filter[name_in][]=` or give one comma-separated value. */
            name_in?: string[];
            /** @description Matches when `name` is none of the listed values: repeat `filter[name_not_in][]=` or give one comma-separated value. */
            name_not_in?: string[];
            /**
             * @description Matches when `name` is less than the value.
             * @example J-1042
             */
            name_lt?: string;
            /**
             * @description Matches when `name` is less than or equal to the value.
             * @example J-1042
             */
            name_lte?: string;
            /**
             * @description Matches when `name` is greater than the value.
             * @example J-1042
             */
            name_gt?: string;
            /**
             * @description Matches when `name` is greater than or equal to the value.
             * @example J-1042
             */
            name_gte?: string;
            /**
             * @description Matches when `name` contains (case-insensitive) the value.
             * @example J-1042
             */
            name_contains?: string;
            /**
             * @description Matches when `name` starts with (case-insensitive) the value.
             * @example J-1042
             */
            name_starts_with?: string;
            /**
             * @description Matches when `name` ends with (case-insensitive) the value.
             * @example J-1042
             */
            name_ends_with?: string;
            /**
             * @description Matches when `type` equals the value.
             * @example Billing
             * @enum {string}
             */
            type?: "Billing" | "Branch" | "Jobsite" | "Office" | "Other" | "Warehouse" | "Will_Call";
            /**
             * @description Matches when `type` does not equal the value.
             * @example Billing
             * @enum {string}
             */
            type_not?: "Billing" | "Branch" | "Jobsite" | "Office" | "Other" | "Warehouse" | "Will_Call";
            /** @description Matches when `type` is one of the listed values: repeat `filter[type_in][]=` or give one comma-separated value. */
            type_in?: ("Billing" | "Branch" | "Jobsite" | "Office" | "Other" | "Warehouse" | "Will_Call")[];
            /** @description Matches when `type` is none of the listed values: repeat `filter[type_not_in][]=` or give one comma-separated value. */
            type_not_in?: ("Billing" | "Branch" | "Jobsite" | "Office" | "Other" | "Warehouse" | "Will_Call")[];
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
         * @description ID of a location of the organization.
         * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
         */
        JobLocationId: string;
        /**
         * @description Also make the location the job's default location.
         * @example true
         */
        ShouldSetAsDefault: boolean;
        /**
         * @description Field to order users by (default `createdAt`).
         * @example displayName
         */
        UserOrderBy: "createdAt" | "displayName" | "email" | "id" | "updatedAt";
        /** @description Conditions on users; see "Filters and pagination". */
        UserFilter: {
            /**
             * @description Matches when `admin` equals the value.
             * @example true
             */
            admin?: boolean;
            /**
             * @description Matches when `admin` does not equal the value.
             * @example true
             */
            admin_not?: boolean;
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
             * @description Matches when `displayName` equals the value.
             * @example J-1042
             */
            displayName?: string;
            /**
             * @description Matches when `displayName` does not equal the value.
             * @example J-1042
             */
            displayName_not?: string;
            /** @description Matches when `displayName` is one of the listed values: repeat `filter[displayName_in][]=` or give one comma-separated value. */
            displayName_in?: string[];
            /** @description Matches when `displayName` is none of the listed values: repeat `filter[displayName_not_in][]=` or give one comma-separated value. */
            displayName_not_in?: string[];
            /**
             * @description Matches when `displayName` is less than the value.
             * @example J-1042
             */
            displayName_lt?: string;
            /**
             * @description Matches when `displayName` is less than or equal to the value.
             * @example J-1042
             */
            displayName_lte?: string;
            /**
             * @description Matches when `displayName` is greater than the value.
             * @example J-1042
             */
            displayName_gt?: string;
            /**
             * @description Matches when `displayName` is greater than or equal to the value.
             * @example J-1042
             */
            displayName_gte?: string;
            /**
             * @description Matches when `displayName` contains (case-insensitive) the value.
             * @example J-1042
             */
            displayName_contains?: string;
            /**
             * @description Matches when `displayName` starts with (case-insensitive) the value.
             * @example J-1042
             */
            displayName_starts_with?: string;
            /**
             * @description Matches when `displayName` ends with (case-insensitive) the value.
             * @example J-1042
             */
            displayName_ends_with?: string;
            /**
             * @description Matches when `email` equals the value.
             * @example J-1042
             */
            email?: string;
            /**
             * @description Matches when `email` does not equal the value.
             * @example J-1042
             */
            email_not?: string;
            /** @description Matches when `email` is one of the listed values: repeat `filter[email_in][]=` or give one comma-separated value. */
            email_in?: string[];
            /** @description Matches when `email` is none of the listed values: repeat `filter[email_not_in][]=` or give one comma-separated value. */
            email_not_in?: string[];
            /**
             * @description Matches when `email` is less than the value.
             * @example J-1042
             */
            email_lt?: string;
            /**
             * @description Matches when `email` is less than or equal to the value.
             * @example J-1042
             */
            email_lte?: string;
            /**
             * @description Matches when `email` is greater than the value.
             * @example J-1042
             */
            email_gt?: string;
            /**
             * @description Matches when `email` is greater than or equal to the value.
             * @example J-1042
             */
            email_gte?: string;
            /**
             * @description Matches when `email` contains (case-insensitive) the value.
             * @example J-1042
             */
            email_contains?: string;
            /**
             * @description Matches when `email` starts with (case-insensitive) the value.
             * @example J-1042
             */
            email_starts_with?: string;
            /**
             * @description Matches when `email` ends with (case-insensitive) the value.
             * @example J-1042
             */
            email_ends_with?: string;
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
             * @description Matches when `phone` equals the value.
             * @example J-1042
             */
            phone?: string;
            /**
             * @description Matches when `phone` does not equal the value.
             * @example J-1042
             */
            phone_not?: string;
            /** @description Matches when `phone` is one of the listed values: repeat `filter[phone_in][]=` or give one comma-separated value. */
            phone_in?: string[];
            /** @description Matches when `phone` is none of the listed values: repeat `filter[phone_not_in][]=` or give one comma-separated value. */
            phone_not_in?: string[];
            /**
             * @description Matches when `phone` is less than the value.
             * @example J-1042
             */
            phone_lt?: string;
            /**
             * @description Matches when `phone` is less than or equal to the value.
             * @example J-1042
             */
            phone_lte?: string;
            /**
             * @description Matches when `phone` is greater than the value.
             * @example J-1042
             */
            phone_gt?: string;
            /**
             * @description Matches when `phone` is greater than or equal to the value.
             * @example J-1042
             */
            phone_gte?: string;
            /**
             * @description Matches when `phone` contains (case-insensitive) the value.
             * @example J-1042
             */
            phone_contains?: string;
            /**
             * @description Matches when `phone` starts with (case-insensitive) the value.
             * @example J-1042
             */
            phone_starts_with?: string;
            /**
             * @description Matches when `phone` ends with (case-insensitive) the value.
             * @example J-1042
             */
            phone_ends_with?: string;
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
         * @description ID of a user of the organization.
         * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
         */
        JobUserId: string;
        /**
         * @description Field to order groups by (default `id`).
         * @example name
         */
        GroupOrderBy: "id" | "code" | "createdAt" | "name" | "updatedAt";
        /** @description Conditions on groups; see "Filters and pagination". */
        GroupFilter: {
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
             * @description Matches when `name` equals the value.
             * @example J-1042
             */
            name?: string;
            /**
             * @description Matches when `name` does not equal the value.
             * @example J-1042
             */
            name_not?: string;
            /** @description Matches when `name` is one of the listed values: repeat `filter[name_in][]=` or give one comma-separated value. */
            name_in?: string[];
            /** @description Matches when `name` is none of the listed values: repeat `filter[name_not_in][]=` or give one comma-separated value. */
            name_not_in?: string[];
            /**
             * @description Matches when `name` is less than the value.
             * @example J-1042
             */
            name_lt?: string;
            /**
             * @description Matches when `name` is less than or equal to the value.
             * @example J-1042
             */
            name_lte?: string;
            /**
             * @description Matches when `name` is greater than the value.
             * @example J-1042
             */
            name_gt?: string;
            /**
             * @description Matches when `name` is greater than or equal to the value.
             * @example J-1042
             */
            name_gte?: string;
            /**
             * @description Matches when `name` contains (case-insensitive) the value.
             * @example J-1042
             */
            name_contains?: string;
            /**
             * @description Matches when `name` starts with (case-insensitive) the value.
             * @example J-1042
             */
            name_starts_with?: string;
            /**
             * @description Matches when `name` ends with (case-insensitive) the value.
             * @example J-1042
             */
            name_ends_with?: string;
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
         * @description The group's ID.
         * @example 6c5b4a39-2817-4f6e-9d5c-4b3a29181706
         */
        GroupId: string;
        /**
         * @description The location's ID.
         * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
         */
        LocationId: string;
        /**
         * @description Field to order vendors by (default `createdAt`).
         * @example code
         */
        VendorOrderBy: "code" | "createdAt" | "id" | "name" | "updatedAt";
        /** @description Conditions on vendors; see "Filters and pagination". */
        VendorFilter: {
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
             * @description Matches when `name` equals the value.
             * @example J-1042
             */
            name?: string;
            /**
             * @description Matches when `name` does not equal the value.
             * @example J-1042
             */
            name_not?: string;
            /** @description Matches when `name` is one of the listed values: repeat `filter[name_in][]=` or give one comma-separated value. */
            name_in?: string[];
            /** @description Matches when `name` is none of the listed values: repeat `filter[name_not_in][]=` or give one comma-separated value. */
            name_not_in?: string[];
            /**
             * @description Matches when `name` is less than the value.
             * @example J-1042
             */
            name_lt?: string;
            /**
             * @description Matches when `name` is less than or equal to the value.
             * @example J-1042
             */
            name_lte?: string;
            /**
             * @description Matches when `name` is greater than the value.
             * @example J-1042
             */
            name_gt?: string;
            /**
             * @description Matches when `name` is greater than or equal to the value.
             * @example J-1042
             */
            name_gte?: string;
            /**
             * @description Matches when `name` contains (case-insensitive) the value.
             * @example J-1042
             */
            name_contains?: string;
            /**
             * @description Matches when `name` starts with (case-insensitive) the value.
             * @example J-1042
             */
            name_starts_with?: string;
            /**
             * @description Matches when `name` ends with (case-insensitive) the value.
             * @example J-1042
             */
            name_ends_with?: string;
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
         * @description Include soft-deleted objects (they carry `deletedAt`).
         * @example false
         */
        IncludeDeleted: boolean;
        /**
         * @description The vendor's ID or its code.
         * @example V-FERGUSON
         */
        VendorIdOrCode: string;
        /**
         * @description Field to order phases by (default `createdAt`; the contract names no default order).
         * @example code
         */
        PhaseOrderBy: "code" | "createdAt" | "description" | "id" | "updatedAt";
        /** @description Conditions on phases; see "Filters and pagination". */
        PhaseFilter: {
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
         * @description Look the phase up among the phases of the job with this code instead of among the global phases.
         * @example J-1042
         */
        PhaseJobCode: string;
        /**
         * @description The job's ID or its code.
         * @example J-1042
         */
        JobIdOrCode: string;
        /**
         * @description The phase's ID or its code (among the phases of the job in the path).
         * @example 03-300
         */
        PhaseIdOrCode: string;
        /**
         * @description Field to order cost categories by (default `createdAt`; the contract names no default order).
         * @example code
         */
        CostCategoryOrderBy: "code" | "createdAt" | "description" | "id" | "updatedAt";
        /** @description Conditions on cost categories; see "Filters and pagination". */
        CostCategoryFilter: {
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
         * @description The cost category's ID or its code (among the categories of the scope in the path).
         * @example MAT
         */
        CategoryIdOrCode: string;
        /**
         * @description The user's ID or e-mail address (compared case-insensitively).
         * @example maria.chen@summitridge.example
         */
        IdOrEmail: string;
        /**
         * @description Field to order tags by (default `createdAt`; the contract names no default order).
         * @example title
         */
        TagOrderBy: "id" | "createdAt" | "title" | "color" | "updatedAt" | "type";
        /** @description Conditions on tags; see "Filters and pagination". */
        TagFilter: {
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
             * @description Matches when taxExempt (`taxExempt` as stored: an order whose taxExempt is null (never set) matches neither `true` nor `false`, and does match `taxExempt_not`) equals the value.
             * @example true
             */
            taxExempt?: boolean;
            /**
             * @description Matches when taxExempt (`taxExempt` as stored: an order whose taxExempt is null (never set) matches neither `true` nor `false`, and does match `taxExempt_not`) does not equal the value.
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
         * @description Cursor paging, an addition of this service to the spec's `offset` paging. Send `cursor=start` for
         *     the first page, then each page's `meta.nextCursor` for the next one, with the same `orderBy`,
         *     `direction` and filters, until `meta.nextCursor` is null. Each page costs the same however deep
         *     the export goes, where a large `offset` must skip every earlier row. Leave `offset` out (or 0)
         *     when giving a cursor. Without `cursor`, `meta` is exactly `{total, limit, offset}`.
         * @example WyJjcmVhdGVkQXQiLCJERVNDIiwiMjAyNi0xMS0yMVQxMDowMDowMC4wMDArMDA6MDAiLCI3ZDFjMmY1ZS00YjhhLTRjMWUtOWYzZC0yYTZiOGMwZTFmNDIiXQ
         */
        Cursor: string;
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
             * @description Matches when taxExempt (`taxExempt` as stored: an invoice whose taxExempt is null (never set) matches neither `true` nor `false`, and does match `taxExempt_not`) equals the value.
             * @example true
             */
            taxExempt?: boolean;
            /**
             * @description Matches when taxExempt (`taxExempt` as stored: an invoice whose taxExempt is null (never set) matches neither `true` nor `false`, and does match `taxExempt_not`) does not equal the value.
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
         * @description Field to order invoice items by (default `createdAt`).
         * @example createdAt
         */
        BulkInvoiceItemOrderBy: "createdAt" | "description" | "hasException" | "id" | "invoiceId" | "lineNumber" | "notes" | "updatedAt";
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
    headers: {
        /**
         * @description The rate-limit policies that apply to this request (IETF httpapi ratelimit-headers draft): one
         *     item per policy, `"<name>";q=<quota>;w=<window in seconds>`. Authenticated requests:
         *     `org-burst` and `org-hourly` (the organization's requests per second and per hour, shared by
         *     all its credentials); where the organization was given more than the defaults, also
         *     `credential-burst` and `credential-hourly` (the default windows, for the credential used).
         *     The token endpoint: `token-failures` (failed client authentications per
         *     minute for one client id from one address).
         * @example "org-burst";q=20;w=1, "org-hourly";q=3600;w=3600
         */
        "RateLimit-Policy": string;
        /**
         * @description What is left of each policy of `RateLimit-Policy` after this request: one item per policy,
         *     `"<name>";r=<remaining>;t=<seconds until the window resets>`.
         * @example "org-burst";r=19;t=1, "org-hourly";r=3517;t=2410
         */
        RateLimit: string;
        /**
         * @description Seconds to wait before sending the request again.
         * @example 1
         */
        "Retry-After": number;
    };
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
        };
    };
    listJobs: {
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
                 * @description Field to order jobs by (default `createdAt`).
                 * @example code
                 */
                orderBy?: components["parameters"]["JobOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on jobs; see "Filters and pagination". */
                filter?: components["parameters"]["JobFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of jobs. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "code": "J-1042",
                     *         "name": "Riverside Medical Office Building",
                     *         "createdAt": "2026-01-15T16:20:00.000Z",
                     *         "updatedAt": "2026-11-02T10:05:31.415Z",
                     *         "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "startDate": "2026-02-01T00:00:00.000Z",
                     *         "state": "OPEN",
                     *         "groups": [
                     *           {
                     *             "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *             "code": "NORCAL",
                     *             "name": "Northern California projects",
                     *             "createdAt": "2026-01-10T08:12:40.210Z",
                     *             "updatedAt": "2026-01-10T08:12:40.210Z",
                     *             "deletedAt": null,
                     *             "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *           }
                     *         ]
                     *       },
                     *       {
                     *         "id": "4d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a",
                     *         "code": "J-0987",
                     *         "name": "Folsom Elementary School Modernization",
                     *         "createdAt": "2025-06-03T14:00:00.000Z",
                     *         "updatedAt": "2026-08-29T17:45:12.008Z",
                     *         "defaultLocationId": null,
                     *         "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "startDate": "2025-07-01T00:00:00.000Z",
                     *         "state": "CLOSED",
                     *         "groups": []
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Job"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createJob: {
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
                 *       "code": "J-1042",
                 *       "name": "Riverside Medical Office Building",
                 *       "defaultLocation": {
                 *         "name": "Riverside MOB jobsite",
                 *         "addressLine1": "4100 Riverside Drive",
                 *         "city": "Sacramento",
                 *         "state": "CA",
                 *         "zipcode": "95833",
                 *         "type": "Jobsite"
                 *       },
                 *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                 *       "startDate": "2026-02-01T00:00:00.000Z",
                 *       "state": "OPEN",
                 *       "groupIds": [
                 *         "6c5b4a39-2817-4f6e-9d5c-4b3a29181706"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["JobCreate"];
            };
        };
        responses: {
            /** @description The created job. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    upsertJobs: {
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
                 *           "code": "J-1042",
                 *           "name": "Riverside Medical Office Building",
                 *           "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                 *           "state": "OPEN",
                 *           "groupIds": [
                 *             "6c5b4a39-2817-4f6e-9d5c-4b3a29181706"
                 *           ]
                 *         },
                 *         {
                 *           "code": "J-1077",
                 *           "name": "Elk Grove Distribution Center",
                 *           "defaultLocation": {
                 *             "name": "Elk Grove DC jobsite",
                 *             "addressLine1": "9800 Kammerer Road",
                 *             "city": "Elk Grove",
                 *             "state": "CA",
                 *             "zipcode": "95757"
                 *           },
                 *           "startDate": "2026-10-01T00:00:00.000Z"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["JobBatch"];
            };
        };
        responses: {
            /** @description The upserted jobs, in input order. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "code": "J-1042",
                     *         "name": "Riverside Medical Office Building",
                     *         "createdAt": "2026-01-15T16:20:00.000Z",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z",
                     *         "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "startDate": "2026-02-01T00:00:00.000Z",
                     *         "state": "OPEN",
                     *         "groups": [
                     *           {
                     *             "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *             "code": "NORCAL",
                     *             "name": "Northern California projects",
                     *             "createdAt": "2026-01-10T08:12:40.210Z",
                     *             "updatedAt": "2026-01-10T08:12:40.210Z",
                     *             "deletedAt": null,
                     *             "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *           }
                     *         ]
                     *       },
                     *       {
                     *         "id": "1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b",
                     *         "code": "J-1077",
                     *         "name": "Elk Grove Distribution Center",
                     *         "createdAt": "2026-11-21T10:00:00.000Z",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z",
                     *         "defaultLocationId": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d",
                     *         "defaultTaxCodeId": null,
                     *         "startDate": "2026-10-01T00:00:00.000Z",
                     *         "state": "OPEN",
                     *         "groups": []
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Job"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "J-1042",
                 *       "name": "Riverside Medical Office Building",
                 *       "state": "OPEN",
                 *       "groupIds": [
                 *         "6c5b4a39-2817-4f6e-9d5c-4b3a29181706"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["JobUpdate"];
            };
        };
        responses: {
            /** @description The updated job. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listJobLocations: {
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
                 * @description Field to order locations by (default `createdAt`). `displayName` orders by the location's `name`.
                 * @example displayName
                 */
                orderBy?: components["parameters"]["LocationOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on locations; see "Filters and pagination". */
                filter?: components["parameters"]["LocationFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the job's locations. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "name": "Riverside MOB jobsite",
                     *         "addressLine1": "4100 Riverside Drive",
                     *         "addressLine2": "Gate 3",
                     *         "city": "Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95833",
                     *         "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                     *         "phone": "+1 916 555 0142",
                     *         "type": "Jobsite",
                     *         "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "latitude": 38.6012,
                     *         "longitude": -121.5087,
                     *         "visibility": "ALL",
                     *         "jobs": [
                     *           {
                     *             "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *             "code": "J-1042",
                     *             "name": "Riverside Medical Office Building"
                     *           }
                     *         ],
                     *         "vendors": [],
                     *         "createdAt": "2026-01-15T16:21:00.000Z",
                     *         "updatedAt": "2026-01-15T16:21:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Location"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addJobLocation: {
        parameters: {
            query: {
                /**
                 * @description ID of a location of the organization.
                 * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
                 */
                locationId: components["parameters"]["JobLocationId"];
                /**
                 * @description Also make the location the job's default location.
                 * @example true
                 */
                shouldSetAsDefault?: components["parameters"]["ShouldSetAsDefault"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    removeJobLocation: {
        parameters: {
            query: {
                /**
                 * @description ID of a location of the organization.
                 * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
                 */
                locationId: components["parameters"]["JobLocationId"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listJobUsers: {
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
                 * @description Field to order users by (default `createdAt`).
                 * @example displayName
                 */
                orderBy?: components["parameters"]["UserOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on users; see "Filters and pagination". */
                filter?: components["parameters"]["UserFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the job's users. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "admin": false,
                     *         "avatarUrl": "https://files.procurement.dev/avatars/maria-chen.png",
                     *         "displayName": "Maria Chen",
                     *         "email": "maria.chen@summitridge.example",
                     *         "firstName": "Maria",
                     *         "lastName": "Chen",
                     *         "phone": "+1 916 555 0117",
                     *         "role": "Procurement",
                     *         "createdAt": "2026-01-12T09:00:00.000Z",
                     *         "updatedAt": "2026-01-12T09:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["User"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addJobUser: {
        parameters: {
            query: {
                /**
                 * @description ID of a user of the organization.
                 * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
                 */
                userId: components["parameters"]["JobUserId"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    removeJobUser: {
        parameters: {
            query: {
                /**
                 * @description ID of a user of the organization.
                 * @example 1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b
                 */
                userId: components["parameters"]["JobUserId"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [
                     *         {
                     *           "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *           "code": "NORCAL",
                     *           "name": "Northern California projects",
                     *           "createdAt": "2026-01-10T08:12:40.210Z",
                     *           "updatedAt": "2026-01-10T08:12:40.210Z",
                     *           "deletedAt": null,
                     *           "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Job"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getNextPurchaseOrderNumber: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The next number. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "nextPurchaseOrderNumber": 1051
                     *     }
                     */
                    "application/json": components["schemas"]["NextPurchaseOrderNumber"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setNextPurchaseOrderNumber: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                idOrCode: components["parameters"]["JobIdOrCodeParam"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "nextCounter": 1050
                 *     }
                 */
                "application/json": components["schemas"]["PurchaseOrderCounterUpdate"];
            };
        };
        responses: {
            /** @description The job, with whether it has job phases and its counter after the change. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "code": "J-1042",
                     *       "name": "Riverside Medical Office Building",
                     *       "createdAt": "2026-01-15T16:20:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultLocationId": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "startDate": "2026-02-01T00:00:00.000Z",
                     *       "state": "OPEN",
                     *       "groups": [],
                     *       "hasPhaseCodes": true,
                     *       "nextPurchaseOrderCounter": 1051
                     *     }
                     */
                    "application/json": components["schemas"]["JobWithCounter"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGroups: {
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
                 * @description Field to order groups by (default `id`).
                 * @example name
                 */
                orderBy?: components["parameters"]["GroupOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on groups; see "Filters and pagination". */
                filter?: components["parameters"]["GroupFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of groups. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *         "code": "NORCAL",
                     *         "name": "Northern California projects",
                     *         "createdAt": "2026-02-11T08:12:40.210Z",
                     *         "updatedAt": "2026-02-11T08:12:40.210Z",
                     *         "deletedAt": null,
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *       },
                     *       {
                     *         "id": "7d6c5b4a-3928-4f7e-8d6c-5b4a39281707",
                     *         "code": "SOCAL",
                     *         "name": "Southern California projects",
                     *         "createdAt": "2026-02-11T08:13:02.004Z",
                     *         "updatedAt": "2026-02-11T08:13:02.004Z",
                     *         "deletedAt": null,
                     *         "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Group"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createGroup: {
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
                 *       "name": "Northern California projects",
                 *       "code": "NORCAL"
                 *     }
                 */
                "application/json": components["schemas"]["GroupCreate"];
            };
        };
        responses: {
            /** @description The created group. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *       "code": "NORCAL",
                     *       "name": "Northern California projects",
                     *       "createdAt": "2026-02-11T08:12:40.210Z",
                     *       "updatedAt": "2026-02-11T08:12:40.210Z",
                     *       "deletedAt": null,
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *     }
                     */
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The group's ID.
                 * @example 6c5b4a39-2817-4f6e-9d5c-4b3a29181706
                 */
                id: components["parameters"]["GroupId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *       "code": "NORCAL",
                     *       "name": "Northern California projects",
                     *       "createdAt": "2026-02-11T08:12:40.210Z",
                     *       "updatedAt": "2026-02-11T08:12:40.210Z",
                     *       "deletedAt": null,
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *     }
                     */
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The group's ID.
                 * @example 6c5b4a39-2817-4f6e-9d5c-4b3a29181706
                 */
                id: components["parameters"]["GroupId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Northern California and Nevada projects"
                 *     }
                 */
                "application/json": components["schemas"]["GroupUpdate"];
            };
        };
        responses: {
            /** @description The updated group. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6c5b4a39-2817-4f6e-9d5c-4b3a29181706",
                     *       "code": "NORCAL",
                     *       "name": "Northern California and Nevada projects",
                     *       "createdAt": "2026-02-11T08:12:40.210Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "deletedAt": null,
                     *       "createdById": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b"
                     *     }
                     */
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listLocations: {
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
                 * @description Field to order locations by (default `createdAt`). `displayName` orders by the location's `name`.
                 * @example displayName
                 */
                orderBy?: components["parameters"]["LocationOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on locations; see "Filters and pagination". */
                filter?: components["parameters"]["LocationFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of locations. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *         "name": "Riverside MOB jobsite",
                     *         "addressLine1": "4100 Riverside Drive",
                     *         "addressLine2": "Gate 3",
                     *         "city": "Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95833",
                     *         "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                     *         "phone": "+1 916 555 0142",
                     *         "type": "Jobsite",
                     *         "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *         "latitude": 38.6012,
                     *         "longitude": -121.5087,
                     *         "visibility": "ALL",
                     *         "jobs": [
                     *           {
                     *             "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *             "code": "J-1042",
                     *             "name": "Riverside Medical Office Building"
                     *           }
                     *         ],
                     *         "vendors": [],
                     *         "createdAt": "2026-01-15T16:21:00.000Z",
                     *         "updatedAt": "2026-01-15T16:21:00.000Z"
                     *       },
                     *       {
                     *         "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *         "name": "Ferguson West Sacramento branch",
                     *         "addressLine1": "1200 Industrial Blvd",
                     *         "addressLine2": null,
                     *         "city": "West Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95691",
                     *         "directions": null,
                     *         "phone": "+1 916 555 0199",
                     *         "type": "Will_Call",
                     *         "defaultTaxCodeId": null,
                     *         "latitude": null,
                     *         "longitude": null,
                     *         "visibility": "ALL",
                     *         "jobs": [],
                     *         "vendors": [
                     *           {
                     *             "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *             "code": "V-FERGUSON",
                     *             "name": "Ferguson Enterprises"
                     *           }
                     *         ],
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Location"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createLocation: {
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
                 *       "name": "Riverside MOB jobsite",
                 *       "type": "Jobsite",
                 *       "addressLine1": "4100 Riverside Drive",
                 *       "addressLine2": "Gate 3",
                 *       "city": "Sacramento",
                 *       "state": "CA",
                 *       "zipcode": "95833",
                 *       "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                 *       "phone": "+1 916 555 0142",
                 *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                 *       "latitude": 38.6012,
                 *       "longitude": -121.5087
                 *     }
                 */
                "application/json": components["schemas"]["LocationCreate"];
            };
        };
        responses: {
            /** @description The created location. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "name": "Riverside MOB jobsite",
                     *       "addressLine1": "4100 Riverside Drive",
                     *       "addressLine2": "Gate 3",
                     *       "city": "Sacramento",
                     *       "state": "CA",
                     *       "zipcode": "95833",
                     *       "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                     *       "phone": "+1 916 555 0142",
                     *       "type": "Jobsite",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "latitude": 38.6012,
                     *       "longitude": -121.5087,
                     *       "visibility": "ALL",
                     *       "jobs": [],
                     *       "vendors": [],
                     *       "createdAt": "2026-01-15T16:21:00.000Z",
                     *       "updatedAt": "2026-01-15T16:21:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Location"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getLocation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The location's ID.
                 * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
                 */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The location. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "name": "Riverside MOB jobsite",
                     *       "addressLine1": "4100 Riverside Drive",
                     *       "addressLine2": "Gate 3",
                     *       "city": "Sacramento",
                     *       "state": "CA",
                     *       "zipcode": "95833",
                     *       "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                     *       "phone": "+1 916 555 0142",
                     *       "type": "Jobsite",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "latitude": 38.6012,
                     *       "longitude": -121.5087,
                     *       "visibility": "ALL",
                     *       "jobs": [
                     *         {
                     *           "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *           "code": "J-1042",
                     *           "name": "Riverside Medical Office Building"
                     *         }
                     *       ],
                     *       "vendors": [],
                     *       "createdAt": "2026-01-15T16:21:00.000Z",
                     *       "updatedAt": "2026-01-15T16:21:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Location"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteLocation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The location's ID.
                 * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
                 */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted location. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "name": "Riverside MOB jobsite",
                     *       "addressLine1": "4100 Riverside Drive",
                     *       "addressLine2": "Gate 3",
                     *       "city": "Sacramento",
                     *       "state": "CA",
                     *       "zipcode": "95833",
                     *       "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                     *       "phone": "+1 916 555 0142",
                     *       "type": "Jobsite",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "latitude": 38.6012,
                     *       "longitude": -121.5087,
                     *       "visibility": "ALL",
                     *       "jobs": [
                     *         {
                     *           "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *           "code": "J-1042",
                     *           "name": "Riverside Medical Office Building"
                     *         }
                     *       ],
                     *       "vendors": [],
                     *       "createdAt": "2026-01-15T16:21:00.000Z",
                     *       "updatedAt": "2026-01-15T16:21:00.000Z",
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["LocationDeleted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateLocation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The location's ID.
                 * @example 2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e
                 */
                id: components["parameters"]["LocationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "addressLine2": "Gate 3",
                 *       "directions": "Enter from Garden Hwy; deliveries at the north laydown yard."
                 *     }
                 */
                "application/json": components["schemas"]["LocationUpdate"];
            };
        };
        responses: {
            /** @description The updated location. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e",
                     *       "name": "Riverside MOB jobsite",
                     *       "addressLine1": "4100 Riverside Drive",
                     *       "addressLine2": "Gate 3",
                     *       "city": "Sacramento",
                     *       "state": "CA",
                     *       "zipcode": "95833",
                     *       "directions": "Enter from Garden Hwy; deliveries at the north laydown yard.",
                     *       "phone": "+1 916 555 0142",
                     *       "type": "Jobsite",
                     *       "defaultTaxCodeId": "5b7c2d3e-1f4a-4b6c-8d9e-0a1b2c3d4e5f",
                     *       "latitude": 38.6012,
                     *       "longitude": -121.5087,
                     *       "visibility": "ALL",
                     *       "jobs": [
                     *         {
                     *           "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *           "code": "J-1042",
                     *           "name": "Riverside Medical Office Building"
                     *         }
                     *       ],
                     *       "vendors": [],
                     *       "createdAt": "2026-01-15T16:21:00.000Z",
                     *       "updatedAt": "2026-01-15T16:21:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Location"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listVendors: {
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
                 * @description Field to order vendors by (default `createdAt`).
                 * @example code
                 */
                orderBy?: components["parameters"]["VendorOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on vendors; see "Filters and pagination". */
                filter?: components["parameters"]["VendorFilter"];
                /**
                 * @description Include soft-deleted objects (they carry `deletedAt`).
                 * @example false
                 */
                includeDeleted?: components["parameters"]["IncludeDeleted"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of vendors. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "code": "V-FERGUSON",
                     *         "name": "Ferguson Enterprises",
                     *         "location": {
                     *           "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *           "name": "Ferguson West Sacramento branch",
                     *           "addressLine1": "1200 Industrial Blvd",
                     *           "addressLine2": null,
                     *           "city": "West Sacramento",
                     *           "state": "CA",
                     *           "zipcode": "95691",
                     *           "directions": null,
                     *           "phone": "+1 916 555 0199",
                     *           "type": "Will_Call",
                     *           "defaultTaxCodeId": null,
                     *           "latitude": null,
                     *           "longitude": null,
                     *           "createdAt": "2026-01-20T12:00:00.000Z",
                     *           "updatedAt": "2026-01-20T12:00:00.000Z"
                     *         },
                     *         "type": {
                     *           "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *           "name": "Plumbing supply",
                     *           "createdAt": "2026-01-20T12:00:00.000Z",
                     *           "updatedAt": "2026-01-20T12:00:00.000Z"
                     *         },
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-09-30T14:11:09.000Z",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
                     *         "code": "V-GRAYBAR",
                     *         "name": "Graybar Electric",
                     *         "location": null,
                     *         "type": null,
                     *         "createdAt": "2026-02-04T09:30:00.000Z",
                     *         "updatedAt": "2026-02-04T09:30:00.000Z",
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Vendor"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createVendor: {
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
                 *       "code": "V-GRAYBAR",
                 *       "name": "Graybar Electric"
                 *     }
                 */
                "application/json": components["schemas"]["VendorCreate"];
            };
        };
        responses: {
            /** @description The created vendor. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
                     *       "code": "V-GRAYBAR",
                     *       "name": "Graybar Electric",
                     *       "location": null,
                     *       "type": null,
                     *       "createdAt": "2026-02-04T09:30:00.000Z",
                     *       "updatedAt": "2026-02-04T09:30:00.000Z",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Vendor"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    upsertVendors: {
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
                 *           "code": "V-FERGUSON",
                 *           "name": "Ferguson Enterprises"
                 *         },
                 *         {
                 *           "code": "V-GRAYBAR",
                 *           "name": "Graybar Electric"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["VendorBatch"];
            };
        };
        responses: {
            /** @description The upserted vendors, in input order. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "code": "V-FERGUSON",
                     *         "name": "Ferguson Enterprises",
                     *         "location": {
                     *           "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *           "name": "Ferguson West Sacramento branch",
                     *           "addressLine1": "1200 Industrial Blvd",
                     *           "addressLine2": null,
                     *           "city": "West Sacramento",
                     *           "state": "CA",
                     *           "zipcode": "95691",
                     *           "directions": null,
                     *           "phone": "+1 916 555 0199",
                     *           "type": "Will_Call",
                     *           "defaultTaxCodeId": null,
                     *           "latitude": null,
                     *           "longitude": null,
                     *           "createdAt": "2026-01-20T12:00:00.000Z",
                     *           "updatedAt": "2026-01-20T12:00:00.000Z"
                     *         },
                     *         "type": {
                     *           "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *           "name": "Plumbing supply",
                     *           "createdAt": "2026-01-20T12:00:00.000Z",
                     *           "updatedAt": "2026-01-20T12:00:00.000Z"
                     *         },
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-09-30T14:11:09.000Z",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
                     *         "code": "V-GRAYBAR",
                     *         "name": "Graybar Electric",
                     *         "location": null,
                     *         "type": null,
                     *         "createdAt": "2026-02-04T09:30:00.000Z",
                     *         "updatedAt": "2026-02-04T09:30:00.000Z",
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Vendor"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getVendor: {
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
                 * @description The vendor's ID or its code.
                 * @example V-FERGUSON
                 */
                idOrCode: components["parameters"]["VendorIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The vendor. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "code": "V-FERGUSON",
                     *       "name": "Ferguson Enterprises",
                     *       "location": {
                     *         "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *         "name": "Ferguson West Sacramento branch",
                     *         "addressLine1": "1200 Industrial Blvd",
                     *         "addressLine2": null,
                     *         "city": "West Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95691",
                     *         "directions": null,
                     *         "phone": "+1 916 555 0199",
                     *         "type": "Will_Call",
                     *         "defaultTaxCodeId": null,
                     *         "latitude": null,
                     *         "longitude": null,
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "type": {
                     *         "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *         "name": "Plumbing supply",
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "createdAt": "2026-01-20T12:00:00.000Z",
                     *       "updatedAt": "2026-09-30T14:11:09.000Z",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Vendor"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteVendor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The vendor's ID or its code.
                 * @example V-FERGUSON
                 */
                idOrCode: components["parameters"]["VendorIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted vendor. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "code": "V-FERGUSON",
                     *       "name": "Ferguson Enterprises",
                     *       "location": {
                     *         "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *         "name": "Ferguson West Sacramento branch",
                     *         "addressLine1": "1200 Industrial Blvd",
                     *         "addressLine2": null,
                     *         "city": "West Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95691",
                     *         "directions": null,
                     *         "phone": "+1 916 555 0199",
                     *         "type": "Will_Call",
                     *         "defaultTaxCodeId": null,
                     *         "latitude": null,
                     *         "longitude": null,
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "type": {
                     *         "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *         "name": "Plumbing supply",
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "createdAt": "2026-01-20T12:00:00.000Z",
                     *       "updatedAt": "2026-09-30T14:11:09.000Z",
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Vendor"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateVendor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The vendor's ID or its code.
                 * @example V-FERGUSON
                 */
                idOrCode: components["parameters"]["VendorIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Ferguson Enterprises",
                 *       "type": "Plumbing supply"
                 *     }
                 */
                "application/json": components["schemas"]["VendorUpdate"];
            };
        };
        responses: {
            /** @description The updated vendor. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "code": "V-FERGUSON",
                     *       "name": "Ferguson Enterprises",
                     *       "location": {
                     *         "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *         "name": "Ferguson West Sacramento branch",
                     *         "addressLine1": "1200 Industrial Blvd",
                     *         "addressLine2": null,
                     *         "city": "West Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95691",
                     *         "directions": null,
                     *         "phone": "+1 916 555 0199",
                     *         "type": "Will_Call",
                     *         "defaultTaxCodeId": null,
                     *         "latitude": null,
                     *         "longitude": null,
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "type": {
                     *         "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *         "name": "Plumbing supply",
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "createdAt": "2026-01-20T12:00:00.000Z",
                     *       "updatedAt": "2026-09-30T14:11:09.000Z",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Vendor"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setVendorLocation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The vendor's ID or its code.
                 * @example V-FERGUSON
                 */
                idOrCode: components["parameters"]["VendorIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "locationId": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a"
                 *     }
                 */
                "application/json": components["schemas"]["VendorLocationInput"];
            };
        };
        responses: {
            /** @description The vendor with its location. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "code": "V-FERGUSON",
                     *       "name": "Ferguson Enterprises",
                     *       "location": {
                     *         "id": "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
                     *         "name": "Ferguson West Sacramento branch",
                     *         "addressLine1": "1200 Industrial Blvd",
                     *         "addressLine2": null,
                     *         "city": "West Sacramento",
                     *         "state": "CA",
                     *         "zipcode": "95691",
                     *         "directions": null,
                     *         "phone": "+1 916 555 0199",
                     *         "type": "Will_Call",
                     *         "defaultTaxCodeId": null,
                     *         "latitude": null,
                     *         "longitude": null,
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "type": {
                     *         "id": "7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
                     *         "name": "Plumbing supply",
                     *         "createdAt": "2026-01-20T12:00:00.000Z",
                     *         "updatedAt": "2026-01-20T12:00:00.000Z"
                     *       },
                     *       "createdAt": "2026-01-20T12:00:00.000Z",
                     *       "updatedAt": "2026-09-30T14:11:09.000Z",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Vendor"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGlobalPhases: {
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
                 * @description Field to order phases by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["PhaseOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on phases; see "Filters and pagination". */
                filter?: components["parameters"]["PhaseFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of global phases. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "createdAt": "2026-02-03T16:20:00.000Z",
                     *         "code": "03-300",
                     *         "description": "Cast-in-place concrete",
                     *         "jobId": null,
                     *         "jobCode": null,
                     *         "updatedAt": "2026-02-03T16:20:00.000Z",
                     *         "defaultGLCode": "5100-CONC",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a",
                     *         "createdAt": "2026-02-03T16:21:12.400Z",
                     *         "code": "26-000",
                     *         "description": "Electrical",
                     *         "jobId": null,
                     *         "jobCode": null,
                     *         "updatedAt": "2026-02-03T16:21:12.400Z",
                     *         "defaultGLCode": null,
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Phase"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createGlobalPhase: {
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
                 *       "code": "03-300",
                 *       "description": "Cast-in-place concrete",
                 *       "defaultGLCode": "5100-CONC"
                 *     }
                 */
                "application/json": components["schemas"]["PhaseCreate"];
            };
        };
        responses: {
            /** @description The created phase. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultGLCode": "5100-CONC",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    upsertPhases: {
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
                 *           "code": "03-300",
                 *           "description": "Cast-in-place concrete",
                 *           "defaultGLCode": "5100-CONC"
                 *         },
                 *         {
                 *           "code": "03-300",
                 *           "description": "Cast-in-place concrete, podium level",
                 *           "jobCode": "J-1042"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["PhaseBatch"];
            };
        };
        responses: {
            /** @description The created and updated phases, in the order of `inputs`. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "createdAt": "2026-02-03T16:20:00.000Z",
                     *         "code": "03-300",
                     *         "description": "Cast-in-place concrete",
                     *         "jobId": null,
                     *         "jobCode": null,
                     *         "updatedAt": "2026-11-21T10:00:00.000Z",
                     *         "defaultGLCode": "5100-CONC",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-11-21T10:00:00.000Z",
                     *         "code": "03-300",
                     *         "description": "Cast-in-place concrete, podium level",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "updatedAt": "2026-11-21T10:00:00.000Z",
                     *         "defaultGLCode": null,
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Phase"][];
                };
            };
            /** @description The list is empty or longer than 1000, or one or more elements were rejected (nothing was saved). */
            400: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
                     *           "message": "Position 1: jobCode J-9999 does not match a job\nPosition 3: code 03-300 of job J-1042 appears more than once in the batch (first at position 2)"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGlobalPhase: {
        parameters: {
            query?: {
                /**
                 * @description Look the phase up among the phases of the job with this code instead of among the global phases.
                 * @example J-1042
                 */
                jobCode?: components["parameters"]["PhaseJobCode"];
            };
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
            /** @description The phase. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "updatedAt": "2026-02-03T16:20:00.000Z",
                     *       "defaultGLCode": "5100-CONC",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteGlobalPhase: {
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
            /** @description The deleted phase. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultGLCode": null,
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateGlobalPhase: {
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
                 *       "description": "Cast-in-place concrete, elevated slabs"
                 *     }
                 */
                "application/json": components["schemas"]["PhaseUpdate"];
            };
        };
        responses: {
            /** @description The updated phase. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete, elevated slabs",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultGLCode": "5100-CONC",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAllJobPhases: {
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
                 * @description Field to order phases by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["PhaseOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on phases; see "Filters and pagination". */
                filter?: components["parameters"]["PhaseFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of job phases. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "createdAt": "2026-02-10T08:00:00.000Z",
                     *         "code": "03-300",
                     *         "description": "Cast-in-place concrete, podium level",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "updatedAt": "2026-02-10T08:00:00.000Z",
                     *         "defaultGLCode": "5100-CONC",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
                     *         "createdAt": "2026-03-01T09:15:00.000Z",
                     *         "code": "26-100",
                     *         "description": "Temporary power",
                     *         "jobId": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                     *         "jobCode": "J-1057",
                     *         "updatedAt": "2026-03-01T09:15:00.000Z",
                     *         "defaultGLCode": null,
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Phase"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listJobPhases: {
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
                 * @description Field to order phases by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["PhaseOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on phases; see "Filters and pagination". */
                filter?: components["parameters"]["PhaseFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the job's phases. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *         "createdAt": "2026-02-03T16:20:00.000Z",
                     *         "code": "03-300",
                     *         "description": "Cast-in-place concrete, podium level",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "updatedAt": "2026-02-03T16:20:00.000Z",
                     *         "defaultGLCode": "5100-CONC",
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Phase"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createJobPhase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "03-300",
                 *       "description": "Cast-in-place concrete, podium level",
                 *       "defaultGLCode": "5100-CONC"
                 *     }
                 */
                "application/json": components["schemas"]["PhaseCreate"];
            };
        };
        responses: {
            /** @description The created phase. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete, podium level",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "updatedAt": "2026-02-03T16:20:00.000Z",
                     *       "defaultGLCode": "5100-CONC",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getJobPhase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The phase. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete, podium level",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "updatedAt": "2026-02-03T16:20:00.000Z",
                     *       "defaultGLCode": "5100-CONC",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteJobPhase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted phase. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete, podium level",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultGLCode": "5100-CONC",
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateJobPhase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Cast-in-place concrete, podium and ramps",
                 *       "defaultGLCode": "5110-CONC"
                 *     }
                 */
                "application/json": components["schemas"]["PhaseUpdate"];
            };
        };
        responses: {
            /** @description The updated phase. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
                     *       "createdAt": "2026-02-03T16:20:00.000Z",
                     *       "code": "03-300",
                     *       "description": "Cast-in-place concrete, podium and ramps",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "defaultGLCode": "5110-CONC",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["Phase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGlobalCategories: {
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
                 * @description Field to order cost categories by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["CostCategoryOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on cost categories; see "Filters and pagination". */
                filter?: components["parameters"]["CostCategoryFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of cost categories. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *         "createdAt": "2026-02-04T11:00:00.000Z",
                     *         "code": "MAT",
                     *         "description": "Materials",
                     *         "updatedAt": "2026-02-04T11:00:00.000Z",
                     *         "jobId": null,
                     *         "jobCode": null,
                     *         "phaseId": null,
                     *         "phaseCode": null,
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "8b9c0d1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e",
                     *         "createdAt": "2026-02-04T11:02:30.250Z",
                     *         "code": "LAB",
                     *         "description": "Labor",
                     *         "updatedAt": "2026-02-04T11:02:30.250Z",
                     *         "jobId": null,
                     *         "jobCode": null,
                     *         "phaseId": null,
                     *         "phaseCode": null,
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["CostCategory"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createGlobalCategory: {
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
                 *       "code": "MAT",
                 *       "description": "Materials"
                 *     }
                 */
                "application/json": components["schemas"]["CostCategoryCreate"];
            };
        };
        responses: {
            /** @description The created cost category. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGlobalCategory: {
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
            /** @description The cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-02-04T11:00:00.000Z",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteGlobalCategory: {
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
            /** @description The deleted cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateGlobalCategory: {
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
                 *       "description": "Materials and supplies"
                 *     }
                 */
                "application/json": components["schemas"]["CostCategoryUpdate"];
            };
        };
        responses: {
            /** @description The updated cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials and supplies",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": null,
                     *       "jobCode": null,
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAllPhaseCategories: {
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
                 * @description Field to order cost categories by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["CostCategoryOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on cost categories; see "Filters and pagination". */
                filter?: components["parameters"]["CostCategoryFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of cost categories. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *         "createdAt": "2026-02-04T11:00:00.000Z",
                     *         "code": "MAT",
                     *         "description": "Materials",
                     *         "updatedAt": "2026-02-04T11:00:00.000Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "phaseCode": "03-300",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "8b9c0d1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e",
                     *         "createdAt": "2026-02-04T11:02:30.250Z",
                     *         "code": "LAB",
                     *         "description": "Labor",
                     *         "updatedAt": "2026-02-04T11:02:30.250Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "phaseCode": "03-300",
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["CostCategory"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listJobPhaseCategories: {
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
                 * @description Field to order cost categories by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["CostCategoryOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on cost categories; see "Filters and pagination". */
                filter?: components["parameters"]["CostCategoryFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of cost categories. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *         "createdAt": "2026-02-04T11:00:00.000Z",
                     *         "code": "MAT",
                     *         "description": "Materials",
                     *         "updatedAt": "2026-02-04T11:00:00.000Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "phaseCode": "03-300",
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "8b9c0d1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e",
                     *         "createdAt": "2026-02-04T11:02:30.250Z",
                     *         "code": "LAB",
                     *         "description": "Labor",
                     *         "updatedAt": "2026-02-04T11:02:30.250Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *         "phaseCode": "03-300",
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["CostCategory"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createJobPhaseCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "MAT",
                 *       "description": "Materials"
                 *     }
                 */
                "application/json": components["schemas"]["CostCategoryCreate"];
            };
        };
        responses: {
            /** @description The created cost category. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "phaseCode": "03-300",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getJobPhaseCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-02-04T11:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "phaseCode": "03-300",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteJobPhaseCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "phaseCode": "03-300",
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateJobPhaseCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The phase's ID or its code (among the phases of the job in the path).
                 * @example 03-300
                 */
                phaseIdOrCode: components["parameters"]["PhaseIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Materials and supplies"
                 *     }
                 */
                "application/json": components["schemas"]["CostCategoryUpdate"];
            };
        };
        responses: {
            /** @description The updated cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials and supplies",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
                     *       "phaseCode": "03-300",
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAllJobCategories: {
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
                 * @description Field to order cost categories by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["CostCategoryOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on cost categories; see "Filters and pagination". */
                filter?: components["parameters"]["CostCategoryFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of cost categories. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *         "createdAt": "2026-02-04T11:00:00.000Z",
                     *         "code": "MAT",
                     *         "description": "Materials",
                     *         "updatedAt": "2026-02-04T11:00:00.000Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": null,
                     *         "phaseCode": null,
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "8b9c0d1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e",
                     *         "createdAt": "2026-02-04T11:02:30.250Z",
                     *         "code": "LAB",
                     *         "description": "Labor",
                     *         "updatedAt": "2026-02-04T11:02:30.250Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": null,
                     *         "phaseCode": null,
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["CostCategory"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listJobCategories: {
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
                 * @description Field to order cost categories by (default `createdAt`; the contract names no default order).
                 * @example code
                 */
                orderBy?: components["parameters"]["CostCategoryOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on cost categories; see "Filters and pagination". */
                filter?: components["parameters"]["CostCategoryFilter"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of cost categories. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *         "createdAt": "2026-02-04T11:00:00.000Z",
                     *         "code": "MAT",
                     *         "description": "Materials",
                     *         "updatedAt": "2026-02-04T11:00:00.000Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": null,
                     *         "phaseCode": null,
                     *         "deletedAt": null
                     *       },
                     *       {
                     *         "id": "8b9c0d1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e",
                     *         "createdAt": "2026-02-04T11:02:30.250Z",
                     *         "code": "LAB",
                     *         "description": "Labor",
                     *         "updatedAt": "2026-02-04T11:02:30.250Z",
                     *         "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *         "jobCode": "J-1042",
                     *         "phaseId": null,
                     *         "phaseCode": null,
                     *         "deletedAt": null
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["CostCategory"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createJobCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "MAT",
                 *       "description": "Materials"
                 *     }
                 */
                "application/json": components["schemas"]["CostCategoryCreate"];
            };
        };
        responses: {
            /** @description The created cost category. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getJobCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-02-04T11:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteJobCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deleted cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateJobCategory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's ID or its code.
                 * @example J-1042
                 */
                jobIdOrCode: components["parameters"]["JobIdOrCode"];
                /**
                 * @description The cost category's ID or its code (among the categories of the scope in the path).
                 * @example MAT
                 */
                categoryIdOrCode: components["parameters"]["CategoryIdOrCode"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Materials and supplies"
                 *     }
                 */
                "application/json": components["schemas"]["CostCategoryUpdate"];
            };
        };
        responses: {
            /** @description The updated cost category. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d",
                     *       "createdAt": "2026-02-04T11:00:00.000Z",
                     *       "code": "MAT",
                     *       "description": "Materials and supplies",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z",
                     *       "jobId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                     *       "jobCode": "J-1042",
                     *       "phaseId": null,
                     *       "phaseCode": null,
                     *       "deletedAt": null
                     *     }
                     */
                    "application/json": components["schemas"]["CostCategory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listUsers: {
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
                 * @description Field to order users by (default `createdAt`).
                 * @example displayName
                 */
                orderBy?: components["parameters"]["UserOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on users; see "Filters and pagination". */
                filter?: components["parameters"]["UserFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b",
                     *         "admin": true,
                     *         "avatarUrl": null,
                     *         "displayName": "Ava Martinez",
                     *         "email": "ava.martinez@summitridge.example",
                     *         "firstName": "Ava",
                     *         "lastName": "Martinez",
                     *         "phone": "+1 916 555 0100",
                     *         "role": "Procurement",
                     *         "createdAt": "2026-01-05T08:00:00.000Z",
                     *         "updatedAt": "2026-01-05T08:00:00.000Z"
                     *       },
                     *       {
                     *         "id": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *         "admin": false,
                     *         "avatarUrl": "https://files.procurement.dev/avatars/maria-chen.png",
                     *         "displayName": "Maria Chen",
                     *         "email": "maria.chen@summitridge.example",
                     *         "firstName": "Maria",
                     *         "lastName": "Chen",
                     *         "phone": "+1 916 555 0117",
                     *         "role": "Field",
                     *         "createdAt": "2026-01-12T09:00:00.000Z",
                     *         "updatedAt": "2026-01-12T09:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["User"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createUser: {
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
                 *       "email": "maria.chen@summitridge.example",
                 *       "firstName": "Maria",
                 *       "lastName": "Chen",
                 *       "role": "Field",
                 *       "phone": "+1 916 555 0117"
                 *     }
                 */
                "application/json": components["schemas"]["UserCreate"];
            };
        };
        responses: {
            /** @description The created user. */
            201: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "admin": false,
                     *       "avatarUrl": null,
                     *       "displayName": "Maria Chen",
                     *       "email": "maria.chen@summitridge.example",
                     *       "firstName": "Maria",
                     *       "lastName": "Chen",
                     *       "phone": "+1 916 555 0117",
                     *       "role": "Field",
                     *       "createdAt": "2026-11-21T10:00:00.000Z",
                     *       "updatedAt": "2026-11-21T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The user's ID or e-mail address (compared case-insensitively).
                 * @example maria.chen@summitridge.example
                 */
                idOrEmail: components["parameters"]["IdOrEmail"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b",
                     *       "admin": false,
                     *       "avatarUrl": "https://files.procurement.dev/avatars/maria-chen.png",
                     *       "displayName": "Maria Chen",
                     *       "email": "maria.chen@summitridge.example",
                     *       "firstName": "Maria",
                     *       "lastName": "Chen",
                     *       "phone": "+1 916 555 0117",
                     *       "role": "Field",
                     *       "createdAt": "2026-01-12T09:00:00.000Z",
                     *       "updatedAt": "2026-01-12T09:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listTags: {
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
                 * @description Field to order tags by (default `createdAt`; the contract names no default order).
                 * @example title
                 */
                orderBy?: components["parameters"]["TagOrderBy"];
                /**
                 * @description Sort direction of `orderBy`.
                 * @example ASC
                 */
                direction?: components["parameters"]["Direction"];
                /** @description Conditions on tags; see "Filters and pagination". */
                filter?: components["parameters"]["TagFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tags. */
            200: {
                headers: {
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
                     *         "title": "Long lead",
                     *         "type": "ORDER",
                     *         "color": "#ff7875",
                     *         "createdAt": "2026-03-09T14:00:00.000Z",
                     *         "updatedAt": "2026-03-09T14:00:00.000Z"
                     *       },
                     *       {
                     *         "id": "3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a",
                     *         "title": "Rental return",
                     *         "type": "TOOL",
                     *         "color": null,
                     *         "createdAt": "2026-03-10T08:45:12.000Z",
                     *         "updatedAt": "2026-03-10T08:45:12.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Tag"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                 * @description Cursor paging, an addition of this service to the spec's `offset` paging. Send `cursor=start` for
                 *     the first page, then each page's `meta.nextCursor` for the next one, with the same `orderBy`,
                 *     `direction` and filters, until `meta.nextCursor` is null. Each page costs the same however deep
                 *     the export goes, where a large `offset` must skip every earlier row. Leave `offset` out (or 0)
                 *     when giving a cursor. Without `cursor`, `meta` is exactly `{total, limit, offset}`.
                 * @example WyJjcmVhdGVkQXQiLCJERVNDIiwiMjAyNi0xMS0yMVQxMDowMDowMC4wMDArMDA6MDAiLCI3ZDFjMmY1ZS00YjhhLTRjMWUtOWYzZC0yYTZiOGMwZTFmNDIiXQ
                 */
                cursor?: components["parameters"]["Cursor"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
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
                 * @description Cursor paging, an addition of this service to the spec's `offset` paging. Send `cursor=start` for
                 *     the first page, then each page's `meta.nextCursor` for the next one, with the same `orderBy`,
                 *     `direction` and filters, until `meta.nextCursor` is null. Each page costs the same however deep
                 *     the export goes, where a large `offset` must skip every earlier row. Leave `offset` out (or 0)
                 *     when giving a cursor. Without `cursor`, `meta` is exactly `{total, limit, offset}`.
                 * @example WyJjcmVhdGVkQXQiLCJERVNDIiwiMjAyNi0xMS0yMVQxMDowMDowMC4wMDArMDA6MDAiLCI3ZDFjMmY1ZS00YjhhLTRjMWUtOWYzZC0yYTZiOGMwZTFmNDIiXQ
                 */
                cursor?: components["parameters"]["Cursor"];
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
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
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
            429: components["responses"]["TooManyRequests"];
        };
    };
}
type WithRequired<T, K extends keyof T> = T & {
    [P in K]-?: T[P];
};
