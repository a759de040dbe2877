import type { DemoPart } from './context';
import { billingBasics, demoFile } from './billing-basics';
import { createDeliveryReceipt, deleteDeliveryReceipt } from '../../src/resources/delivery-receipts/store';

export const seedDeliveryReceipts: DemoPart = async (ctx) => {
  const { db, orgId, ref } = ctx;
  const b = await billingBasics(ctx);
  const by = b.users[1] ?? b.users[0];
  const [o1, o2] = b.orders;
  const slip = await demoFile(ctx, 'packing-slip-PO-2041-0031.pdf');
  const photo = await demoFile(ctx, 'crushed-elbow-boxes.jpg');
  const bol = await demoFile(ctx, 'bill-of-lading-WR-2041-0001.pdf');

  await createDeliveryReceipt(
    db,
    orgId,
    {
      identifier: 'DR-2041-0012',
      order_id: o1.id,
      created_by_id: by,
      state: 'SUBMITTED',
      notes: 'Two fittings boxes crushed; photos attached.',
      notified_contacts: ['ava.martinez@summitridge.example'],
      integration_state: 'LINKED',
      integration_message: 'Receipt posted to AP as RCV-20931.',
      integration_last_sync: '2026-11-06T16:00:00Z',
    },
    [
      {
        description: '3/4 in. Type L copper pipe, 20 ft',
        item_id: o1.itemIds[0],
        quantity: 40,
        quantity_received_this_receipt: 24,
        units_of_measure: 'EA',
        issues: { NO_ISSUES: 24, BACKORDERED: 16 },
        notes: 'Balance on backorder, ETA 11/14.',
      },
      {
        description: '3/4 in. copper 90 deg elbow, box of 25',
        item_id: o1.itemIds[1],
        quantity: 12,
        quantity_received_this_receipt: 12,
        units_of_measure: 'BOX',
        issues: { NO_ISSUES: 10, DAMAGED: 2 },
      },
    ],
    [slip, photo],
  );
  await createDeliveryReceipt(
    db,
    orgId,
    { identifier: 'DR-2041-0013', order_id: o2.id, created_by_id: by, state: 'SUBMITTED', integration_state: 'NOT_LINKED' },
    [
      { description: '3/4 in. Type L copper pipe, 20 ft', item_id: o2.itemIds[0], quantity: 40, quantity_received_this_receipt: 40, issues: { NO_ISSUES: 40 } },
      {
        description: '3/4 in. copper 90 deg elbow, box of 25',
        item_id: o2.itemIds[1],
        quantity: 12,
        quantity_received_this_receipt: 12,
        units_of_measure: 'BOX',
        issues: { NO_ISSUES: 12 },
      },
    ],
  );
  await createDeliveryReceipt(
    db,
    orgId,
    {
      identifier: 'DR-2041-0014',
      order_id: o2.id,
      created_by_id: by,
      state: 'DRAFT',
      notes: 'Driver left before count finished.',
      integration_state: 'ERROR',
      integration_message: 'PO 2041-0032 is closed in the ERP; reopen it to post this receipt.',
    },
    [
      {
        description: '3/4 in. copper 90 deg elbow, box of 25',
        item_id: o2.itemIds[1],
        quantity: 12,
        quantity_received_this_receipt: 9,
        units_of_measure: 'BOX',
        issues: { NO_ISSUES: 9, MISSING: 3 },
      },
    ],
  );
  // Without an order: material sent from the yard against a warehouse request.
  await createDeliveryReceipt(
    db,
    orgId,
    {
      identifier: 'DR-2041-0015',
      created_by_id: by,
      state: 'SUBMITTED',
      warehouse_request_id: ref('warehouseRequest', 'WR-2041-0001'),
      notified_contacts: ['luis.ortega@summitridge.example', 'Site trailer'],
      integration_state: 'LINKING',
    },
    [
      {
        description: '1/2 in. drywall, 4x8 sheet',
        quantity: 60,
        quantity_received_this_receipt: 60,
        issues: { NO_ISSUES: 58, WRONG_ITEM: 2 },
        notes: 'Two 5/8 in. sheets in the stack.',
      },
    ],
    [bol],
  );
  await createDeliveryReceipt(
    db,
    orgId,
    {
      identifier: 'DR-2041-0016',
      created_by_id: by,
      state: 'SUBMITTED',
      integration_state: 'OUT_OF_SYNC',
      integration_message: 'Quantities changed after posting.',
    },
    [{ description: 'Simpson A35 framing angle', quantity: 200, quantity_received_this_receipt: 200, issues: { NO_ISSUES: 200 } }],
  );
  // Entered twice by mistake and deleted: visible only with includeDeleted.
  const dup = await createDeliveryReceipt(db, orgId, { identifier: 'DR-2041-0013-DUP', order_id: o2.id, created_by_id: by, state: 'SUBMITTED' }, [
    { description: '3/4 in. Type L copper pipe, 20 ft', item_id: o2.itemIds[0], quantity: 40, quantity_received_this_receipt: 40, issues: { NO_ISSUES: 40 } },
  ]);
  await deleteDeliveryReceipt(db, orgId, dup);
};
