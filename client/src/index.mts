/**
 * @procurement-api/client: the construction procurement API's sync kit. See README.md.
 */
export { API_VERSION } from './api-version.mjs';
export { ApiError } from './api-error.mjs';
export { createClient, type ClientOptions, type ProcurementClient } from './client.mjs';
export type { RetryOptions } from './retry.mjs';
export { paginate, type ListItem, type ListPath, type PaginateOptions } from './paginate.mjs';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders, type WebhookRefusal } from './webhooks.mjs';
export { memoryCursorStore, fileCursorStore, type CursorStore } from './cursor-store.mjs';
export { FeedFollower, type FeedFollowerOptions, type ResyncContext } from './feed-follower.mjs';
export { fullReadResync, type FullReadOptions } from './resync.mjs';
export { reconcile, type ReconcileOptions, type ReconcileResult } from './reconcile.mjs';
export { objectDigest } from './digest.mjs';
export type { ChangeEntry, ReconciliationResource, components, operations, paths } from './types.mjs';
