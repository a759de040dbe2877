import type { Queryable } from '../db/knex';
import { isUuid } from '../db/columns';
import { ProvisionError } from './provision';

/**
 * Links a buyer organization's vendor record to the seller organization it stands for, so the
 * seller can look up the buyer's orders sent to that vendor
 * (GET /order/buyerId/{buyerId}/purchaseOrderNumber/{purchaseOrderNumber}).
 */
export async function linkVendor(db: Queryable, buyerOrgId: string, vendorCode: string, sellerOrgId: string) {
  for (const [flag, id] of [
    ['--org', buyerOrgId],
    ['--seller-org', sellerOrgId],
  ] as const) {
    if (!isUuid(id) || !(await db('organizations').where({ id }).first('id'))) throw new ProvisionError(`${flag}: organization ${id} does not exist`);
  }
  if (buyerOrgId === sellerOrgId) throw new ProvisionError('--seller-org must be another organization than --org');
  const [vendor] = await db('vendors')
    .where({ organization_id: buyerOrgId, code: vendorCode })
    .whereNull('deleted_at')
    .update({ seller_organization_id: sellerOrgId, updated_at: db.fn.now() })
    .returning(['id', 'code']);
  if (!vendor) throw new ProvisionError(`--vendor: organization ${buyerOrgId} has no vendor ${vendorCode}`);
  return { organization: { id: buyerOrgId }, vendor: { id: vendor.id, code: vendor.code }, sellerOrganization: { id: sellerOrgId } };
}
