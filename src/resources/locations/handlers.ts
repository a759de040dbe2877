import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound } from '../../http/handler';
import { createdBy, plainHandlers } from '../plain';
import { locationListParams } from './list-params';
import * as q from './queries';

const missing = (id: string) => notFound(`No location matches ${id}.`);

export const locationHandlers: Handlers<'listLocations' | 'createLocation' | 'getLocation' | 'updateLocation' | 'deleteLocation'> = {
  listLocations: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listLocations(db, caller.organizationId, locationListParams(query)),
  }),

  createLocation: createdBy(q.createLocation),

  getLocation: plainHandlers<Schema<'Location'>>(q.locations).get('id', missing),

  updateLocation: ({ db, caller, params, body }) => okOrNotFound(q.updateLocation(db, caller.organizationId, params.id, body), missing, params.id),

  deleteLocation: ({ db, caller, params }) => okOrNotFound(q.deleteLocation(db, caller.organizationId, params.id), missing, params.id),
};
