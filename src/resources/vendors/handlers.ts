import { notFound } from '../../http/errors';
import type { Handlers } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { locationType } from '../locations/queries';
import { upsertVendors } from './batch';
import * as q from './queries';

const missing = (idOrCode: string) => notFound(`No vendor matches ${idOrCode}.`);

export const vendorHandlers: Handlers<'listVendors' | 'createVendor' | 'upsertVendors' | 'getVendor' | 'updateVendor' | 'deleteVendor' | 'setVendorLocation'> =
  {
    listVendors: async ({ db, caller, query }) => ({
      status: 200,
      body: await q.listVendors(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' }), query.includeDeleted ?? false),
    }),

    createVendor: async ({ db, caller, body }) => ({
      status: 201,
      body: await q.createVendor(db, caller.organizationId, body),
    }),

    upsertVendors: async ({ db, caller, body, changes }) => ({
      status: 200,
      body: await upsertVendors(db, caller.organizationId, body.inputs, (ids) => changes.markCreated(ids)),
    }),

    getVendor: async ({ db, caller, params, query }) => {
      const found = await q.getVendor(db, caller.organizationId, params.idOrCode, query.includeDeleted ?? false);
      if (!found) throw missing(params.idOrCode);
      return { status: 200, body: found };
    },

    updateVendor: async ({ db, caller, params, body }) => {
      const updated = await q.updateVendor(db, caller.organizationId, params.idOrCode, body);
      if (!updated) throw missing(params.idOrCode);
      return { status: 200, body: updated };
    },

    deleteVendor: async ({ db, caller, params }) => {
      const deleted = await q.deleteVendor(db, caller.organizationId, params.idOrCode);
      if (!deleted) throw missing(params.idOrCode);
      return { status: 200, body: deleted };
    },

    setVendorLocation: async ({ db, caller, params, body }) => {
      const id = await q.liveVendorId(db, caller.organizationId, params.idOrCode);
      if (!id) throw missing(params.idOrCode);
      if (!(await locationType(db, caller.organizationId, body.locationId))) {
        throw notFound(`body.locationId: no location ${body.locationId} exists in your organization.`);
      }
      return { status: 200, body: await q.setVendorLocation(db, caller.organizationId, id, body.locationId) };
    },
  };
