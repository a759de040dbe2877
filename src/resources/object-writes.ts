import type { ObjectOfWrite, ObjectsOfWrites } from '../http/conditional';
import type { OperationId } from '../http/handler';
import { getItem as getBomItem } from './bills-of-materials/queries';

/**
 * The object each single-object write changes, for `If-Match` (src/http/conditional.ts): the table
 * whose row lock serializes its writers, and the read whose body is the object (its ETag). The
 * backend refuses to start when an operation declares If-Match and is missing here.
 */
const object = (table: string, read: ObjectOfWrite['read']): ObjectOfWrite => ({ table, read });

const taxCode = object('tax_codes', 'getTaxCode');
const job = object('jobs', 'getJob');
const location = object('locations', 'getLocation');
const vendor = object('vendors', 'getVendor');
const globalPhase = object('phases', 'getGlobalPhase');
const jobPhase = object('phases', 'getJobPhase');
const globalCategory = object('cost_categories', 'getGlobalCategory');
const jobPhaseCategory = object('cost_categories', 'getJobPhaseCategory');
const jobCategory = object('cost_categories', 'getJobCategory');
const order = object('orders', 'getOrder');
const item = object('items', 'getItem');
const bomItem = object('bill_of_materials_items', (db, orgId, p) => getBomItem(db, orgId, p.billOfMaterialsItemId));
const webhookEndpoint = object('webhook_endpoints', 'getWebhookEndpoint');

export const OBJECT_WRITES: ObjectsOfWrites = {
  updateTaxCode: taxCode,
  deleteTaxCode: taxCode,
  updateUnitOfMeasure: object('units_of_measure', 'getUnitOfMeasure'),
  updateJob: job,
  // A job's locations and users are part of the job (its read lists them).
  removeJobLocation: job,
  removeJobUser: job,
  updateGroup: object('groups', 'getGroup'),
  updateLocation: location,
  deleteLocation: location,
  updateVendor: vendor,
  deleteVendor: vendor,
  updateGlobalPhase: globalPhase,
  deleteGlobalPhase: globalPhase,
  updateJobPhase: jobPhase,
  deleteJobPhase: jobPhase,
  updateGlobalCategory: globalCategory,
  deleteGlobalCategory: globalCategory,
  updateJobPhaseCategory: jobPhaseCategory,
  deleteJobPhaseCategory: jobPhaseCategory,
  updateJobCategory: jobCategory,
  deleteJobCategory: jobCategory,
  updateOrder: order,
  deleteOrder: order,
  updateOrderIntegrationState: order,
  // An order's tags are the order's: the tag link has no read of its own.
  removeOrderTag: order,
  updateItem: item,
  deleteItem: item,
  updateBillOfMaterialsItem: bomItem,
  deleteBillOfMaterialsItem: bomItem,
  updateRequisitionState: object('requisitions', 'getRequisition'),
  updateWebhookEndpoint: webhookEndpoint,
  deleteWebhookEndpoint: webhookEndpoint,
} satisfies Partial<Record<OperationId, ObjectOfWrite>>;
