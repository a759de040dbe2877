import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { locationListParams } from './list-params';
import * as q from './queries';

const missing = (id: string) => notFound(`No location matches ${id}.`);

export const locationHandlers: Handlers<'listLocations' | 'createLocation' | 'getLocation' | 'updateLocation' | 'deleteLocation'> = {
  listLocations: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listLocations(db, caller.organizationId, locationListParams(query)),
  }),

  createLocation: async ({ db, caller, body }) => ({
    status: 201,
    body: await q.createLocation(db, caller.organizationId, body),
  }),

  getLocation: async ({ db, caller, params }) => {
    const found = await q.getLocation(db, caller.organizationId, params.id);
    if (!found) throw missing(params.id);
    return { status: 200, body: found };
  },

  updateLocation: async ({ db, caller, params, body }) => {
    const updated = await q.updateLocation(db, caller.organizationId, params.id, body);
    if (!updated) throw missing(params.id);
    return { status: 200, body: updated };
  },

  deleteLocation: async ({ db, caller, params }) => {
    const deleted = await q.deleteLocation(db, caller.organizationId, params.id);
    if (!deleted) throw missing(params.id);
    return { status: 200, body: deleted };
  },
};
