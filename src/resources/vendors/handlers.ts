import { notFound } from '../../errors';
import { type Handlers, type Schema, okOrNotFound, orNotFound } from '../../http/handler';
import { listParams } from '../../http/list-params';
import { locationType } from '../locations/queries';
import { createdBy, plainHandlers, upsertedBy } from '../crud-handlers';
import { upsertVendors } from './batch';
import * as q from './queries';

const missing = (idOrCode: string) => notFound(`No vendor matches ${idOrCode}.`);

export const vendorHandlers: Handlers<'listVendors' | 'createVendor' | 'upsertVendors' | 'getVendor' | 'updateVendor' | 'deleteVendor' | 'setVendorLocation'> =
  {
    listVendors: async ({ db, caller, query }) => ({
      status: 200,
      body: await q.listVendors(db, caller.organizationId, listParams(query, { orderBy: 'createdAt' }), query.includeDeleted ?? false),
    }),

    createVendor: createdBy(q.createVendor),

    upsertVendors: upsertedBy(upsertVendors),

    getVendor: ({ db, caller, params, query }) =>
      okOrNotFound(q.getVendor(db, caller.organizationId, params.vendorIdOrCode, query.includeDeleted ?? false), missing, params.vendorIdOrCode),

    updateVendor: ({ db, caller, params, body }) =>
      okOrNotFound(q.updateVendor(db, caller.organizationId, params.vendorIdOrCode, body), missing, params.vendorIdOrCode),

    deleteVendor: plainHandlers<Schema<'Vendor'>>(q.vendors).remove('vendorIdOrCode', missing),

    setVendorLocation: async ({ db, caller, params, body, changes }) => {
      const id = orNotFound(await q.liveVendorId(db, caller.organizationId, params.vendorIdOrCode), missing, params.vendorIdOrCode);
      if (!(await locationType(db, caller.organizationId, body.locationId))) {
        throw notFound(`body.locationId: no location ${body.locationId} exists in your organization.`);
      }
      const { vendor, previousLocationId } = await q.setVendorLocation(db, caller.organizationId, id, body.locationId);
      // The location it leaves lists it no more: the feed reports that location too (declarations.ts).
      if (previousLocationId && previousLocationId !== body.locationId) changes.markUpdated([previousLocationId]);
      return { status: 200, body: vendor };
    },
  };
