import type { ResourceDeclarations } from '../declarations';
import { one, each, entry, type FeedObject } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { getItem as getBomItem, billsOfMaterials, bomItems } from './queries';

const billOfMaterialsItem = objectOfWrite('bill_of_materials_items', (db, orgId, p) => getBomItem(db, orgId, p.billOfMaterialsItemId));

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const billsOfMaterialsDeclarations: ResourceDeclarations = {
  reconciled: { bill_of_materials: billsOfMaterials, bom_item: bomItems },
  feed: {
    // 200 answers an existing bill of materials: nothing changed.
    createJobBillOfMaterials: (reply, { status }) => (status === 201 ? [entry('bill_of_materials', 'created', reply as FeedObject)] : []),
    createBillOfMaterialsItems: each('bom_item', 'created'),
    updateBillOfMaterialsItem: one('bom_item', 'updated'),
    deleteBillOfMaterialsItem: one('bom_item', 'deleted'),
    updateBillOfMaterialsItems: each('bom_item', 'updated'),
  },
  objects: {
    updateBillOfMaterialsItem: billOfMaterialsItem,
    deleteBillOfMaterialsItem: billOfMaterialsItem,
  },
  batchLists: {
    updateBillOfMaterialsItems: 'inputs',
    createBillOfMaterialsItems: 'billOfMaterialsItems',
  },
};
