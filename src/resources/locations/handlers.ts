import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound } from '../../http/handler';
import { createdBy, plainHandlers } from '../crud-handlers';
import { locationListParams } from './list-params';
import * as q from './queries';

const missing = (id: string) => notFound(`No location matches ${id}.`);

export const locationHandlers: Handlers<'listLocations' | 'createLocation' | 'getLocation' | 'updateLocation' | 'deleteLocation'> = {
  listLocations: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listLocations(db, caller.organizationId, locationListParams(query)),
  }),

  createLocation: createdBy(q.createLocation),

  getLocation: plainHandlers<Schema<'Location'>>(q.locations).get('locationId', missing),

  updateLocation: ({ db, caller, params, body }) =>
    okOrNotFound(q.updateLocation(db, caller.organizationId, params.locationId, body), missing, params.locationId),

  deleteLocation: ({ db, caller, params }) => okOrNotFound(q.deleteLocation(db, caller.organizationId, params.locationId), missing, params.locationId),
};
