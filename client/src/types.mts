/** The contract's types (generated/api-types.ts, built from api/ by `npm run generate`). */
import type { components, operations, paths } from '../../generated/api-types.js';

export type { components, operations, paths };

/** An entry of the change feed (`GET /changes`). */
export type ChangeEntry = components['schemas']['ChangeEntry'];
/** A resource that `GET /reconciliation/{resource}` digests. */
export type ReconciliationResource = components['schemas']['ReconciliationResource'];
