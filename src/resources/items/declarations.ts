import type { ResourceDeclarations } from '../declarations';
import { objectOfWrite } from '../../http/conditional';
import { items } from '../orders/item-reads';

const item = objectOfWrite('items', 'getItem');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const itemsDeclarations: ResourceDeclarations = {
  reconciled: { item: items },
  feedByHandler: {
    createOrderItems: 'change_order.created (a sent order), order.updated, item.created per line',
    updateItem: 'change_order.created (a sent order), order.updated, item.updated',
    deleteItem: 'change_order.created (a sent order), order.updated, item.deleted',
  },
  objects: {
    updateItem: item,
    deleteItem: item,
  },
};
