import type { ResourceDeclarations } from '../declarations';
import { entry, one, present, type EmitContext, type FeedObject } from '../../feed/emit';
import type { ChangeEntry } from '../../feed/append';
import { locationsInOrder, locations } from './queries';
import { objectOfWrite } from '../../http/conditional';

const location = objectOfWrite('locations', 'getLocation');

/** Jobs and vendors whose representation a location change altered (a default location reassigned, an embedded location). */
async function jobAndVendorEntries(ctx: EmitContext, jobIds: unknown[], vendorIds: unknown[]): Promise<ChangeEntry[]> {
  const jobs = present(jobIds).length ? await ctx.read('job', present(jobIds)) : [];
  const vendors = present(vendorIds).length ? await ctx.read('vendor', present(vendorIds)) : [];
  return [...jobs.map((j) => entry('job', 'updated', j)), ...vendors.map((v) => entry('vendor', 'updated', v))];
}

/** A location as its writes reply (the contract's Location): the jobs and vendors it lists. */
type LocationReply = FeedObject & { jobs?: { id: string }[]; vendors?: { id: string }[] };
const idsOf = (objects: { id: string }[] = []) => objects.map((o) => o.id);

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const locationsDeclarations: ResourceDeclarations = {
  reconciled: { location: locations },
  feed: {
    createLocation: one('location', 'created'),
    // Vendors embed their location.
    updateLocation: async (reply, ctx) => {
      const updated = reply as LocationReply;
      return [entry('location', 'updated', updated), ...(await jobAndVendorEntries(ctx, [], idsOf(updated.vendors)))];
    },
    // Its jobs get another default location, its vendors none.
    deleteLocation: async (reply, ctx) => {
      const deleted = reply as LocationReply;
      return [entry('location', 'deleted', deleted), ...(await jobAndVendorEntries(ctx, idsOf(deleted.jobs), idsOf(deleted.vendors)))];
    },
  },
  reads: { location: locationsInOrder },
  objects: {
    updateLocation: location,
    deleteLocation: location,
  },
};
