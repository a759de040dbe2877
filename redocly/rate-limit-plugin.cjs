'use strict';
/**
 * Redocly plugin: rate limits on every operation (decorator `rate-limits/responses`, bundle time).
 *
 * Every operation can be answered 429 and every answer carries the RateLimit headers, so they are
 * added here rather than written into each path file: an operation added later is documented with
 * them without anyone remembering to. The components themselves (the shared `TooManyRequests`
 * response, the `RateLimit`, `RateLimit-Policy` and `Retry-After` headers) are written in
 * api/components/rate-limits.yaml and added to the bundle's components.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const yaml = require('js-yaml');

const COMPONENTS = yaml.load(readFileSync(join(__dirname, '..', 'api', 'components', 'rate-limits.yaml'), 'utf8'));
const header = (name) => ({ $ref: `#/components/headers/${name}` });

function withHeaders(response) {
  if (response.$ref) return;
  response.headers = response.headers || {};
  for (const name of ['RateLimit-Policy', 'RateLimit']) if (!response.headers[name]) response.headers[name] = header(name);
}

function responses() {
  return {
    Root: {
      leave(root) {
        root.components = root.components || {};
        root.components.headers = { ...(root.components.headers || {}), ...structuredClone(COMPONENTS.headers) };
        root.components.responses = { ...(root.components.responses || {}), ...structuredClone(COMPONENTS.responses) };
      },
    },
    Operation: {
      leave(operation) {
        operation.responses = operation.responses || {};
        if (!operation.responses['429']) operation.responses['429'] = { $ref: '#/components/responses/TooManyRequests' };
        // Responses another decorator added to the operation (the 403 of procurement/scope-security)
        // are not visited as Response nodes: give them the headers here.
        for (const response of Object.values(operation.responses)) withHeaders(response);
      },
    },
    Response: { leave: withHeaders },
  };
}

module.exports = function rateLimitPlugin() {
  return {
    id: 'rate-limits',
    decorators: { oas3: { responses } },
  };
};
