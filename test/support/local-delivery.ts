import type { DeliveryDeps } from '../../src/background/deliver';
import { loadConfig } from '../../src/config';
import { Sender } from '../../src/webhooks/send';
import { webhookSettings } from '../../src/webhooks/settings';
import { harness } from './harness';

/** Deliveries run in the test's own process (deliverEndpoint) by a real sender, to receivers on 127.0.0.1. */
export const localDelivery = (workerId: string): DeliveryDeps => ({
  db: harness().db,
  sender: new Sender(['127.0.0.1'], 5000),
  settings: { ...webhookSettings(loadConfig()), allowedHosts: ['127.0.0.1'] },
  workerId,
  stopping: () => false,
});
