import type { Queryable } from '../../db/knex';
import { col, expr, idCol, tsCol } from '../../db/columns';
import { ListParams } from '../../db/list';
import { ResourceDef, existsById, listJson, oneByIdJson, scoped } from '../../db/resource';
import type { Schema } from '../../http/handler';
import type { JsonParts } from '../../db/json';

type ChangeOrder = Schema<'ChangeOrder'>;
type IntegrationState = Schema<'IntegrationState'>;

export const changeOrders: ResourceDef = {
  table: 'change_orders',
  alias: 'co',
  columns: {
    id: idCol('co.id'),
    externalId: col('co.external_id'),
    createdAt: tsCol('co.created_at'),
    updatedAt: tsCol('co.updated_at'),
    createdById: idCol('co.created_by_id'),
    orderId: idCol('co.order_id'),
    label: col('co.label'),
    note: col('co.note'),
    versionNumber: col('co.version_number'),
    draft: col('co.draft'),
    modifiedOrderValues: expr('co.modified_order_values'),
    addedItems: expr('co.added_items'),
    deletedItems: expr('co.deleted_items'),
    modifiedItems: expr('co.modified_items'),
    integrationState: col('co.integration_state'),
    integrationMessage: col('co.integration_message'),
  },
  // Change orders of deleted orders are gone with their order.
  joins: (q) => q.join({ o: 'orders' }, (j) => j.on('o.organization_id', 'co.organization_id').andOn('o.id', 'co.order_id')).whereNull('o.deleted_at'),
};

/** GET /changeOrders returns at most this many per request, whatever `limit` says. */
export const CHANGE_ORDER_PAGE_CAP = 10;

export function listChangeOrders(db: Queryable, orgId: string, params: ListParams): Promise<JsonParts<ChangeOrder[]>> {
  const q = scoped(db, changeOrders, orgId);
  // Drafts are ignored unless requested.
  if (params.filter.draft === undefined) q.where('co.draft', false);
  return listJson<ChangeOrder>(db, changeOrders, q, { ...params, limit: Math.min(params.limit, CHANGE_ORDER_PAGE_CAP) });
}

export const getChangeOrder = (db: Queryable, orgId: string, id: string) => oneByIdJson<ChangeOrder>(db, changeOrders, orgId, id);

/** Stores the reported state and message (null clears it); leaves updated_at alone. */
export async function setIntegrationState(db: Queryable, orgId: string, id: string, state: IntegrationState, message: string | null): Promise<boolean> {
  if (!(await existsById(db, changeOrders, orgId, id))) return false;
  await db('change_orders').where({ organization_id: orgId, id }).update({ integration_state: state, integration_message: message });
  return true;
}
