import type { ResourceDeclarations } from '../declarations';
import { entry, one, present, type EmitContext } from '../../feed/emit';
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

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const locationsDeclarations: ResourceDeclarations = {
  reconciled: { location: locations },
  feed: {
    createLocation: one('location', 'created'),
    // Vendors embed their location.
    updateLocation: async (reply, ctx) => [
      entry('location', 'updated', reply),
      ...(await jobAndVendorEntries(
        ctx,
        [],
        (reply.vendors ?? []).map((v: { id: string }) => v.id),
      )),
    ],
    // Its jobs get another default location, its vendors none.
    deleteLocation: async (reply, ctx) => [
      entry('location', 'deleted', reply),
      ...(await jobAndVendorEntries(
        ctx,
        (reply.jobs ?? []).map((j: { id: string }) => j.id),
        (reply.vendors ?? []).map((v: { id: string }) => v.id),
      )),
    ],
  },
  reads: { location: locationsInOrder },
  objects: {
    updateLocation: location,
    deleteLocation: location,
  },
};
