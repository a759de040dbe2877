import { notFound, unavailable } from '../../errors';
import { encodeCursor } from '../../feed/cursor';
import type { Handlers, Schema } from '../../http/handler';
import { reconciliationDigests } from './digests';
import { RECONCILED } from './sources';
import { contextOf } from '../../http/context';
import { restateAt } from '../../versions/registry';

type Resource = Schema<'ReconciliationResource'>;

export const reconciliationHandlers: Handlers<'getReconciliation'> = {
  getReconciliation: async ({ db, caller, params, query, req }) => {
    const resource = params.resource;
    if (!Object.prototype.hasOwnProperty.call(RECONCILED, resource)) {
      throw notFound(`No resource ${resource} can be reconciled (use a resource of GET /changes whose objects have an id, e.g. vendor).`);
    }
    const prefix = query.prefix ?? '';
    // The objects as the request's API version reads them (a copy kept at an older version is proved equal to that).
    const digests = await reconciliationDigests(db, caller.organizationId, resource, prefix, restateAt(contextOf(req).apiVersion, resource));
    if (!digests)
      throw unavailable(`The ${resource} digests are being brought up to date (changes made in the database, or a rebuild after a bulk load); retry later.`);
    const { position, ...rest } = digests;
    return { status: 200, body: { resource: resource as Resource, prefix, asOf: encodeCursor(caller.organizationId, position), ...rest } };
  },
};
