import { notFound, unavailable } from '../../errors';
import { encodeCursor } from '../../feed/cursor';
import type { Handlers, Schema } from '../../http/handler';
import { reconciliationDigests } from './digests';
import { reconciledDef, type ReconciledSources } from './sources';
import { contextOf } from '../../http/context';
import { restateAt } from '../../versions/registry';

type Resource = Schema<'ReconciliationResource'>;

/** The reconciliation's handler over the reconciled resources (gathered from their declarations: src/resources/index.ts). */
export const reconciliationHandlers = (sources: ReconciledSources): Handlers<'getReconciliation'> => ({
  getReconciliation: async ({ db, caller, params, query, req }) => {
    const resource = params.resource;
    if (!reconciledDef(sources, resource)) {
      throw notFound(`No resource ${resource} can be reconciled (use a resource of GET /changes whose objects have an id, e.g. vendor).`);
    }
    const prefix = query.prefix ?? '';
    // The objects as the request's API version reads them (a copy kept at an older version is proved equal to that).
    const digests = await reconciliationDigests(sources, db, caller.organizationId, resource, prefix, restateAt(contextOf(req).apiVersion, resource));
    if (!digests)
      throw unavailable(`The ${resource} digests are being brought up to date (changes made in the database, or a rebuild after a bulk load); retry later.`);
    const { position, ...rest } = digests;
    return { status: 200, body: { resource: resource as Resource, prefix, asOf: encodeCursor(caller.organizationId, position), ...rest } };
  },
});
