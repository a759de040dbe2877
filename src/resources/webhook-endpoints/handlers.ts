import { invalidField, notFound } from '../../errors';
import { type Handlers, orNotFound } from '../../http/handler';
import { decodeCursor, encodeCursor } from '../../feed/cursor';
import { checkChangeTypes } from '../../feed/change-type-filter';
import { resolvedProblem, urlProblem } from '../../webhooks/ssrf';
import { allowedHostsOf, webhookSettings } from '../../webhooks/settings';
import type { ChangeCollector } from '../../feed/append';
import { resolveSelf } from '../../http/origin';
import type { Caller } from '../../http/handler';
import { etagOf } from '../../http/conditional';
import * as q from './queries';
import { contextOf } from '../../http/context';
import { changedFieldsUpAt, isServed, NEWEST, versionNamed } from '../../versions/registry';

const missing = (id: string) => notFound(`No webhook endpoint matches ${id}.`);

const refusedUrl = (url: string, problem: string) => invalidField('body.url', 'webhookUrl', `${url} ${problem}.`);

/** Refuses a target that would reach our own network (see src/webhooks/ssrf.ts). */
async function checkUrl(url: string, allowedHosts: string[]): Promise<void> {
  const problem = urlProblem(url, allowedHosts) ?? (await resolvedProblem(url, allowedHosts));
  if (problem) throw refusedUrl(url, problem);
}

/**
 * The mock's check of a target (src/mock/front.ts): what the service refuses on its form alone, with
 * no host allowed (the production default: plain http and private addresses refused).
 */
export function checkUrlForm(url: string | undefined): void {
  const problem = url === undefined ? undefined : urlProblem(url, []);
  if (problem) throw refusedUrl(url!, problem);
}

/** Endpoint changes are changes of the organization's data like any other: they enter the feed. */
const emit = (changes: ChangeCollector, event: 'created' | 'updated' | 'deleted', id: string, data: unknown) =>
  changes.add({ type: `webhook_endpoint.${event}`, resource: 'webhook_endpoint', id, data });

/** The input with `self` in excludeOrigins stored as the id of the credential making the request. */
const withOrigins = <T extends { excludeOrigins?: string[] | null }>(caller: Caller, input: T): T =>
  input.excludeOrigins ? { ...input, excludeOrigins: resolveSelf(caller, input.excludeOrigins) } : input;

/** A payload version the service serves, else a 400 naming the field. */
function servedVersion(version: string): string {
  if (!isServed(versionNamed(version))) throw invalidField('body.apiVersion', 'supported-version', `${version} is not a supported API version (GET /versions)`);
  return version;
}

/** An update's version change: the version, and the feed position it applies after (a cursor of the organization's feed). */
function versionChange(orgId: string, body: { apiVersion?: string; apiVersionAfter?: string }): Pick<q.EndpointInput, 'apiVersion' | 'apiVersionAfter'> {
  if (body.apiVersionAfter !== undefined && body.apiVersion === undefined)
    throw invalidField('body.apiVersionAfter', 'requires', 'is given only with apiVersion');
  if (body.apiVersion === undefined) return {};
  if (body.apiVersionAfter === undefined) return { apiVersion: servedVersion(body.apiVersion) };
  const position = decodeCursor(orgId, body.apiVersionAfter);
  if (position === undefined)
    throw invalidField('body.apiVersionAfter', 'cursor', 'is not a cursor of this feed (use a cursor the feed or a delivery returned)');
  return { apiVersion: servedVersion(body.apiVersion), apiVersionAfter: position };
}

/** An update's settings besides its version change. */
const settingsOf = <T extends { apiVersion?: string; apiVersionAfter?: string }>({ apiVersion: _v, apiVersionAfter: _a, ...settings }: T) => settings;

/**
 * `fields` named as the newest version names them, whichever of the request's version (its body
 * was moved up already: x-changed-fields) and the endpoint's `apiVersion` (what its payloads'
 * changedFields name) they were given in: stored so, they match the same changes whatever version
 * the endpoint is later switched to.
 */
const fieldsAt = <T extends { fields?: string[] | null }>(input: T, apiVersion: string): T =>
  input.fields ? { ...input, fields: changedFieldsUpAt(apiVersion, input.fields) } : input;

export const webhookEndpointHandlers: Handlers<
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'rotateWebhookEndpointSecret'
  | 'listWebhookDeliveries'
  | 'replayWebhookDeliveries'
> = {
  listWebhookEndpoints: async ({ db, caller, query }) => ({
    status: 200,
    body: await q.listEndpoints(db, caller.organizationId, query.limit ?? 100, query.offset ?? 0),
  }),

  createWebhookEndpoint: async ({ db, caller, body, changes, config, req }) => {
    if (body.types) checkChangeTypes('body.types', body.types);
    await checkUrl(body.url, await allowedHostsOf(db, caller.organizationId, config.webhookAllowedHosts));
    // Its payloads at the version the creating request ran at, unless it names one.
    const apiVersion = servedVersion(body.apiVersion ?? contextOf(req).apiVersion ?? NEWEST);
    const { row, secret } = await q.createEndpoint(db, caller.organizationId, caller.userId, {
      ...fieldsAt(withOrigins(caller, body), apiVersion),
      apiVersion,
    });
    const endpoint = q.endpointJson(row);
    emit(changes, 'created', row.id, endpoint);
    // The ETag is the endpoint's as its read returns it, without the secret shown only here.
    return { status: 201, body: { ...endpoint, secret }, headers: { ETag: etagOf(endpoint) } };
  },

  getWebhookEndpoint: async ({ db, caller, params }) => {
    const row = orNotFound(await q.endpointRow(db, caller.organizationId, params.webhookEndpointId), missing, params.webhookEndpointId);
    return { status: 200, body: q.endpointJson(row) };
  },

  updateWebhookEndpoint: async ({ db, caller, params, body, changes, config }) => {
    if (body.types) checkChangeTypes('body.types', body.types);
    if (body.url !== undefined) await checkUrl(body.url, await allowedHostsOf(db, caller.organizationId, config.webhookAllowedHosts));
    const version = versionChange(caller.organizationId, body);
    // The names of the version it will have, when given.
    const current = body.fields ? await q.endpointRow(db, caller.organizationId, params.webhookEndpointId, true) : undefined;
    const settings = current ? fieldsAt(settingsOf(body), version.apiVersion ?? current.api_version) : settingsOf(body);
    const row = orNotFound(
      await q.updateEndpoint(db, caller.organizationId, params.webhookEndpointId, { ...withOrigins(caller, settings), ...version }),
      missing,
      params.webhookEndpointId,
    );
    const endpoint = q.endpointJson(row);
    emit(changes, 'updated', row.id, endpoint);
    return { status: 200, body: endpoint };
  },

  deleteWebhookEndpoint: async ({ db, caller, params, changes }) => {
    const row = orNotFound(await q.deleteEndpoint(db, caller.organizationId, params.webhookEndpointId), missing, params.webhookEndpointId);
    emit(changes, 'deleted', row.id, { id: row.id, deletedAt: new Date().toISOString() });
    return { status: 200, body: q.endpointJson(row) };
  },

  rotateWebhookEndpointSecret: async ({ db, caller, params, changes, config }) => {
    const rotated = orNotFound(
      await q.rotateSecret(db, caller.organizationId, params.webhookEndpointId, webhookSettings(config).secretOverlapMs),
      missing,
      params.webhookEndpointId,
    );
    const endpoint = q.endpointJson(rotated.row);
    emit(changes, 'updated', rotated.row.id, endpoint);
    return { status: 200, body: { ...endpoint, secret: rotated.secret } };
  },

  listWebhookDeliveries: async ({ db, caller, params, query }) => {
    const orgId = caller.organizationId;
    if (!(await q.endpointRow(db, orgId, params.webhookEndpointId))) throw missing(params.webhookEndpointId);
    return {
      status: 200,
      body: await q.listDeliveries(db, orgId, params.webhookEndpointId, query.limit ?? 100, query.offset ?? 0, (p) => encodeCursor(orgId, p)),
    };
  },

  replayWebhookDeliveries: async ({ db, caller, params, body }) => {
    const position = decodeCursor(caller.organizationId, body.after);
    if (position === undefined) throw invalidField('body.after', 'cursor', 'is not a cursor of this feed (use a cursor the feed or a delivery returned)');
    if (!(await q.replayFrom(db, caller.organizationId, params.webhookEndpointId, position))) throw missing(params.webhookEndpointId);
    return { status: 202, body: { endpointId: params.webhookEndpointId, after: body.after } };
  },
};
