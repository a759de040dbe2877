import type { ResourceDeclarations } from '../declarations';
import { objectOfWrite } from '../../http/conditional';

const webhookEndpoint = objectOfWrite('webhook_endpoints', 'getWebhookEndpoint');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const webhookEndpointsDeclarations: ResourceDeclarations = {
  feedByHandler: {
    // The reply of an endpoint write holds its secret, which never enters the feed.
    createWebhookEndpoint: 'webhook_endpoint.created (without its secret)',
    updateWebhookEndpoint: 'webhook_endpoint.updated',
    deleteWebhookEndpoint: 'webhook_endpoint.deleted',
    rotateWebhookEndpointSecret: 'webhook_endpoint.updated (without its secret)',
  },
  feedExcluded: {
    replayWebhookDeliveries: 're-sends entries already in the feed; it changes no object',
  },
  objects: {
    updateWebhookEndpoint: webhookEndpoint,
    deleteWebhookEndpoint: webhookEndpoint,
  },
};
