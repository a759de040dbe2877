import type { ResourceDeclarations } from '../declarations';
import { objectOfWrite } from '../../http/conditional';
import { orders } from './queries';

const order = objectOfWrite('orders', 'getOrder');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const ordersDeclarations: ResourceDeclarations = {
  reconciled: { order: orders },
  feedByHandler: {
    createOrder: 'order.created, then item.created per line',
    updateOrder: 'change_order.created (a sent order), order.updated, item.updated for repriced lines',
    deleteOrder: 'item.deleted, change_order.deleted, release.deleted and order_tag.deleted for each of what it holds, then order.deleted',
    updateOrderIntegrationState: 'order.integration_state_changed (also when a refused stale LINKED moves a LINKING order to OUT_OF_SYNC)',
  },
  objects: {
    updateOrder: order,
    deleteOrder: order,
    updateOrderIntegrationState: order,
  },
};
