import type { ResourceDeclarations } from '../declarations';
import { entry, locationEntries, renamedOf, type Emitter, type FeedObject } from '../../feed/emit';
import { vendorsInOrder, vendors } from './queries';
import { objectOfWrite } from '../../http/conditional';

const vendor = objectOfWrite('vendors', 'getVendor');

/** Vendors (the reply) and, when their code or name may have changed or they were deleted, the locations that list them. */
const vendorsWithLocations =
  (event: 'created' | 'updated' | 'deleted' | 'upserted'): Emitter =>
  async (reply, ctx) => {
    const vendors: { id: string; location: { id: string } | null }[] = Array.isArray(reply) ? reply : [reply];
    const entries = vendors.map((v) => entry('vendor', event === 'upserted' ? (ctx.changes.created.has(v.id) ? 'created' : 'updated') : event, v));
    const listed = event === 'deleted' ? vendors : renamedOf(vendors, ctx);
    return [
      ...entries,
      ...(await locationEntries(
        ctx,
        listed.map((v) => v.location?.id),
      )),
    ];
  };

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const vendorsDeclarations: ResourceDeclarations = {
  reconciled: { vendor: vendors },
  feed: {
    createVendor: vendorsWithLocations('created'),
    upsertVendors: vendorsWithLocations('upserted'),
    updateVendor: vendorsWithLocations('updated'),
    deleteVendor: vendorsWithLocations('deleted'),
    // The location it moved to, then the one it left (marked by the handler: the reply does not name it).
    setVendorLocation: async (reply, ctx) => [
      entry('vendor', 'updated', reply as FeedObject),
      ...(await locationEntries(ctx, [(ctx.input as { locationId?: unknown }).locationId, ...ctx.changes.updated])),
    ],
  },
  reads: { vendor: vendorsInOrder },
  objects: {
    updateVendor: vendor,
    deleteVendor: vendor,
  },
  batchLists: {
    upsertVendors: 'inputs',
  },
};
