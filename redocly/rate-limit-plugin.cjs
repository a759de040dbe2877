'use strict';
/**
 * Redocly plugin: headers every answer of the service carries, its rate limits, and the answers
 * any operation can give (503, 431, and 415 where it takes a JSON body: api/components/
 * shared-responses.yaml) (decorator `rate-limits/responses`, bundle time).
 *
 * Every operation takes the `Api-Version` request header (api/components/parameters/ApiVersion.yaml)
 * and every answer says its version in `Api-Version` (headers/ApiVersion.yaml).
 *
 * Every operation can be answered 429 and every answer carries `X-Request-Id` and the RateLimit
 * headers, so they are added here rather than written into each path file: an operation added
 * later is documented with them without anyone remembering to. The rate-limit components (the
 * shared `TooManyRequests` response, the `RateLimit`, `RateLimit-Policy` and `Retry-After`
 * headers) are written in api/components/rate-limits.yaml and added to the bundle's components;
 * `X-Request-Id` is api/components/headers/RequestId.yaml.
 *
 * Every list (a GET with an `offset` or `cursor` parameter, and the change feed, which pages by
 * `after`) says where it goes on in a `Link` header (rel="next", api/components/headers/Link.yaml)
 * on its 200, added here for the same reason.
 *
 * Not under `x-webhooks`: those responses are the ones the integrator's receiver sends us, not
 * answers of this service.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const yaml = require('js-yaml');

const load = (file) => yaml.load(readFileSync(join(__dirname, '..', 'api', 'components', file), 'utf8'));
const COMPONENTS = load('rate-limits.yaml');
const SHARED = load('shared-responses.yaml');
const REQUEST_ID = load('headers/RequestId.yaml');
const LINK = load('headers/Link.yaml');
const API_VERSION = load('headers/ApiVersion.yaml');
const API_VERSION_PARAMETER = load('parameters/ApiVersion.yaml');
// The names the headers take in the bundle (RequestId.yaml is bundled as `RequestId`).
const HEADERS = { 'X-Request-Id': 'RequestId', 'Api-Version': 'ApiVersion', 'RateLimit-Policy': 'RateLimit-Policy', RateLimit: 'RateLimit' };
const header = (name) => ({ $ref: `#/components/headers/${name}` });

function withHeaders(response) {
  if (!response || response.$ref) return;
  response.headers = response.headers || {};
  for (const [name, component] of Object.entries(HEADERS)) if (!response.headers[name]) response.headers[name] = header(component);
}

/** True for a node written under the document's `x-webhooks` (the receiver's side of a webhook). */
const inWebhooks = ({ location, rawLocation }) => [location, rawLocation].some((l) => l && String(l.pointer).startsWith('#/x-webhooks/'));

/** A list: a GET whose query pages (`offset`, the bulk lists' `cursor`, the change feed's `after`). */
const PAGING = ['offset', 'cursor', 'after'];
const isList = (operation, ctx) =>
  (operation.parameters || []).some((p) => {
    const param = p.$ref ? ctx.resolve(p).node : p;
    return param && param.in === 'query' && PAGING.includes(param.name);
  });

function responses() {
  return {
    Root: {
      leave(root) {
        root.components = root.components || {};
        const headers = structuredClone(COMPONENTS.headers);
        // Every path file refers to RequestId.yaml today; added here too so the `$ref`s this
        // decorator writes never dangle. Set after the bundler named its components (Root.leave
        // comes last), so this never makes it bundle a `RequestId-2`.
        if (!root.components.headers?.RequestId) headers.RequestId = structuredClone(REQUEST_ID);
        headers.Link = structuredClone(LINK);
        headers.ApiVersion = structuredClone(API_VERSION);
        root.components.parameters = { ...(root.components.parameters || {}), ApiVersion: structuredClone(API_VERSION_PARAMETER) };
        root.components.headers = { ...(root.components.headers || {}), ...headers };
        const added = structuredClone({ ...COMPONENTS.responses, ...SHARED.responses });
        for (const response of Object.values(added)) withHeaders(response);
        root.components.responses = { ...(root.components.responses || {}), ...added };
      },
    },
    Operation: {
      leave(operation, ctx) {
        if (inWebhooks(ctx)) return;
        // Every operation runs at the version its request names (Api-Version), as every answer says.
        operation.parameters = operation.parameters || [];
        if (!operation.parameters.some((p) => p.$ref === '#/components/parameters/ApiVersion'))
          operation.parameters.push({ $ref: '#/components/parameters/ApiVersion' });
        operation.responses = operation.responses || {};
        const shared = (status, name) => {
          if (!operation.responses[status]) operation.responses[status] = { $ref: `#/components/responses/${name}` };
        };
        shared('429', 'TooManyRequests');
        shared('431', 'RequestHeaderFieldsTooLarge');
        shared('503', 'ServiceUnavailable');
        // A JSON body of another media type is refused with 415; a form body (the token endpoint)
        // is answered in its own format (400 invalid_request).
        const content = operation.requestBody && !operation.requestBody.$ref ? operation.requestBody.content || {} : undefined;
        if (content && !content['application/x-www-form-urlencoded']) shared('415', 'UnsupportedMediaType');
        // Responses another decorator added to the operation (the 403 of procurement/scope-security)
        // are not visited as Response nodes: give them the headers here.
        for (const response of Object.values(operation.responses)) withHeaders(response);
        if (ctx.key === 'get' && isList(operation, ctx)) {
          const ok = operation.responses['200'];
          if (ok && !ok.$ref) ok.headers = { ...ok.headers, Link: header('Link') };
        }
      },
    },
    Response: {
      leave(response, ctx) {
        if (!inWebhooks(ctx)) withHeaders(response);
      },
    },
  };
}

module.exports = function rateLimitPlugin() {
  return {
    id: 'rate-limits',
    decorators: { oas3: { responses } },
  };
};
