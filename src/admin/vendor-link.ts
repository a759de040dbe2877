import type { Db } from '../db/knex';
import { isUuid } from '../db/columns';
import { readObjectTexts } from '../db/object-reads';
import { writeTransaction } from '../feed/append';
import { changedFieldsOf } from '../feed/unchanged';
import { vendors } from '../resources/vendors/queries';
import { ProvisionError } from './provision';

/**
 * Links a buyer organization's vendor record to the seller organization it stands for, so the
 * seller can look up the buyer's orders sent to that vendor
 * (GET /order/buyerId/{buyerId}/purchaseOrderNumber/{purchaseOrderNumber}). The vendor's read
 * does not show the link, but its `updatedAt` moves: the change is a `vendor.updated` entry (origin
 * `system`), in the same transaction.
 */
export async function linkVendor(db: Db, buyerOrgId: string, vendorCode: string, sellerOrgId: string) {
  for (const [flag, id] of [
    ['--org', buyerOrgId],
    ['--seller-org', sellerOrgId],
  ] as const) {
    if (!isUuid(id) || !(await db('organizations').where({ id }).first('id'))) throw new ProvisionError(`${flag}: organization ${id} does not exist`);
  }
  if (buyerOrgId === sellerOrgId) throw new ProvisionError('--seller-org must be another organization than --org');
  const vendor = await writeTransaction(db, buyerOrgId, async (trx, changes) => {
    const [row] = await trx('vendors').where({ organization_id: buyerOrgId, code: vendorCode }).whereNull('deleted_at').forUpdate().select('id', 'code');
    if (!row) throw new ProvisionError(`--vendor: organization ${buyerOrgId} has no vendor ${vendorCode}`);
    const read = async () => JSON.parse((await readObjectTexts(trx, vendors, buyerOrgId, (q, id) => q.where(id, row.id)))[0].json);
    const before = await read();
    await trx('vendors').where({ id: row.id }).update({ seller_organization_id: sellerOrgId, updated_at: trx.fn.now() });
    const data = await read();
    const changedFields = changedFieldsOf(data, before);
    const previous = Object.fromEntries(changedFields.map((f) => [f, before[f]]));
    changes.add({ type: 'vendor.updated', resource: 'vendor', id: row.id, data, changedFields, previous });
    return row as { id: string; code: string };
  });
  return { organization: { id: buyerOrgId }, vendor: { id: vendor.id, code: vendor.code }, sellerOrganization: { id: sellerOrgId } };
}
