import type { ResourceDef } from '../../db/resource';
import type { FeedResource } from '../../feed/change-types';
import { billsOfMaterials, bomItems } from '../bills-of-materials/queries';
import { changeOrders } from '../change-orders/queries';
import { costCategories } from '../cost-categories/queries';
import { deliveryReceipts } from '../delivery-receipts/queries';
import { groups } from '../groups/queries';
import { invoiceItems } from '../invoice-items/queries';
import { invoices } from '../invoices/queries';
import { items } from '../orders/item-reads';
import { jobs } from '../jobs/queries';
import { locations } from '../locations/queries';
import { notifications } from '../notifications/queries';
import { orders } from '../orders/queries';
import { phases } from '../phases/queries';
import { releases } from '../releases/queries';
import { requisitions } from '../requisitions/queries';
import { tags } from '../tags/queries';
import { taxCodes } from '../tax-codes/queries';
import { unitsOfMeasure } from '../units-of-measure/queries';
import { users } from '../users/queries';
import { vendors } from '../vendors/queries';
import { warehouseRequests } from '../warehouse-requests/queries';

/**
 * The resources GET /reconciliation/{resource} answers (every resource of the feed whose objects
 * have their own id and their own read), each with the ResourceDef its single read (or, for those
 * read only in lists, its list) builds the object with: the backfill builds states with the same
 * definition, so a backfilled state is the object as it is read.
 *
 * Not here: `order_tag` (a tag on an order is named by the pair, not an id of its own) and
 * `webhook_endpoint` (the integration's own configuration, not data it copies).
 */
export const RECONCILED: Partial<Record<FeedResource, ResourceDef>> = {
  bill_of_materials: billsOfMaterials,
  bom_item: bomItems,
  change_order: changeOrders,
  cost_category: costCategories,
  delivery_receipt: deliveryReceipts,
  group: groups,
  invoice: invoices,
  invoice_item: invoiceItems,
  item: items,
  job: jobs,
  location: locations,
  notification: notifications,
  order: orders,
  phase: phases,
  release: releases,
  requisition: requisitions,
  tag: tags,
  tax_code: taxCodes,
  unit_of_measure: unitsOfMeasure,
  user: users,
  vendor: vendors,
  warehouse_request: warehouseRequests,
};

export const RECONCILED_RESOURCES = Object.keys(RECONCILED).sort() as FeedResource[];
