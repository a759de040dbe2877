'use strict';
/**
 * Redocly plugin for the procurement API document.
 *
 * expand-filters (decorator, runs at bundle time): a list's filter schema is written compactly in
 * api/ as `x-filter-fields: {field: {type, values?, ops?}}` and expanded here into one property per
 * `field` and `field_<op>`. The runtime reads the same expanded schema from generated/, so the
 * document, the generated types, request validation and the SQL builder cannot drift apart.
 *
 * camel-case-properties (rule): schema property names are camelCase (filter keys may carry
 * an operator suffix such as `code_starts_with`).
 *
 * error-responses (rule): every operation documents the error statuses it can always answer:
 * - 401 when it has security (its own `security`, else the document's), i.e. every operation but
 *   the token endpoint and any with `security: []` (or an optional `{}` requirement);
 * - 404 when its path has a path parameter (the object may not exist, or belong to another
 *   organization, which is answered the same way);
 * - 400 when it has a request body or a query parameter (either can be invalid).
 */

const OPS_BY_TYPE = {
  id: ['eq', 'not', 'in', 'not_in'],
  string: ['eq', 'not', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte', 'contains', 'starts_with', 'ends_with'],
  'date-time': ['eq', 'not', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte'],
  enum: ['eq', 'not', 'in', 'not_in'],
  boolean: ['eq', 'not'],
  integer: ['eq', 'not', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte'],
  number: ['eq', 'not', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte'],
};

const OP_TEXT = {
  eq: 'equals',
  not: 'does not equal',
  in: 'is one of',
  not_in: 'is none of',
  lt: 'is less than',
  lte: 'is less than or equal to',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  contains: 'contains (case-insensitive)',
  starts_with: 'starts with (case-insensitive)',
  ends_with: 'ends with (case-insensitive)',
};

const EXAMPLES = {
  id: '7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42',
  string: 'J-1042',
  'date-time': '2026-11-01T00:00:00.000Z',
  boolean: true,
  integer: 1,
  number: 10.5,
};

function valueSchema(field, def) {
  switch (def.type) {
    case 'id':
      return { type: 'string', minLength: 1, example: EXAMPLES.id };
    case 'string':
      return { type: 'string', example: def.example || EXAMPLES.string };
    case 'date-time':
      return { type: 'string', format: 'date-time', example: EXAMPLES['date-time'] };
    case 'enum':
      return { type: 'string', enum: def.values, description: `One of ${def.values.map((v) => '`' + v + '`').join(', ')}.`, example: def.values[0] };
    case 'boolean':
      return { type: 'boolean', example: true };
    case 'integer':
      return { type: 'integer', format: 'int32', example: EXAMPLES.integer };
    case 'number':
      return { type: 'number', example: EXAMPLES.number };
    default:
      throw new Error(`x-filter-fields.${field}: unknown type ${def.type}`);
  }
}

function expand(fields) {
  const properties = {};
  for (const [field, def] of Object.entries(fields)) {
    const ops = def.ops || OPS_BY_TYPE[def.type];
    if (!ops) throw new Error(`x-filter-fields.${field}: unknown type ${def.type}`);
    for (const op of ops) {
      const key = op === 'eq' ? field : `${field}_${op}`;
      const single = valueSchema(field, def);
      const label = def.description ? `${field} (${def.description})` : `\`${field}\``;
      if (op === 'in' || op === 'not_in') {
        properties[key] = {
          type: 'array',
          maxItems: 1000,
          description: `Matches when ${label} ${OP_TEXT[op]} the listed values: repeat \`filter[${key}][]=\` or give one comma-separated value.`,
          items: single,
        };
      } else {
        const { example, ...rest } = single;
        properties[key] = { ...rest, description: `Matches when ${label} ${OP_TEXT[op]} the value.`, example };
      }
    }
  }
  return properties;
}

/** An orderBy parameter lists its fields: each orders by the response field of the same name. */
function describeOrderBy(parameter) {
  const schema = parameter.schema;
  if (parameter.name !== 'orderBy' || !schema || !Array.isArray(schema.enum)) return;
  const values = schema.enum.map((v) => '`' + v + '`').join(', ');
  if (!schema.description) schema.description = `One of ${values}: the response field of that name (then \`id\`, so pages are stable).`;
}

function expandFilters() {
  return {
    Parameter: {
      leave(parameter) {
        describeOrderBy(parameter);
      },
    },
    Schema: {
      leave(schema) {
        const fields = schema['x-filter-fields'];
        if (!fields) return;
        schema.type = 'object';
        schema.additionalProperties = false;
        schema.properties = expand(fields);
        // The expanded properties are the contract; the compact form stays in api/ only.
        delete schema['x-filter-fields'];
      },
    },
  };
}

const CAMEL = /^[a-z][a-zA-Z0-9]*(_(not|in|not_in|lt|lte|gt|gte|contains|starts_with|ends_with))?$/;

function camelCaseProperties() {
  return {
    Schema(schema, { report, location }) {
      if (!schema.properties) return;
      for (const name of Object.keys(schema.properties)) {
        // OAuth 2.0 (RFC 6749) fixes its own snake_case names; the token endpoint keeps them.
        if (schema['x-rfc-names']) continue;
        if (!CAMEL.test(name)) {
          report({ message: `Property \`${name}\` is not camelCase.`, location: location.child(['properties', name]).key() });
        }
      }
    },
  };
}

const PATH_PARAM = /\{[^}]+\}/;

function errorResponses() {
  let rootSecurity;
  let path;
  let pathItem;
  return {
    Root: {
      enter(root) {
        rootSecurity = root.security;
      },
    },
    PathItem: {
      enter(node, { key }) {
        path = String(key);
        pathItem = node;
      },
      Operation: {
        leave(operation, { report, location, resolve, key }) {
          const statuses = new Set(Object.keys(operation.responses || {}));
          const security = operation.security !== undefined ? operation.security : rootSecurity;
          const secured = Array.isArray(security) && security.length > 0 && security.every((req) => req && Object.keys(req).length > 0);
          const parameters = [...(pathItem.parameters || []), ...(operation.parameters || [])].map((p) => resolve(p).node).filter(Boolean);
          const hasQuery = parameters.some((p) => p.in === 'query');
          const name = `${String(key).toUpperCase()} ${path}`;
          const required = [];
          if (secured) required.push(['401', 'it requires credentials']);
          if (PATH_PARAM.test(path)) required.push(['404', 'its path has a path parameter']);
          if (operation.requestBody || hasQuery) required.push(['400', operation.requestBody ? 'it has a request body' : 'it has query parameters']);
          for (const [status, why] of required) {
            if (statuses.has(status)) continue;
            report({
              message: `\`${name}\` must document a ${status} response: ${why}.`,
              location: location.child(['responses']).key(),
            });
          }
        },
      },
    },
  };
}

/**
 * Least privilege (src/auth/scopes.ts): every operation that takes the document's default security
 * gets it with its OAuth 2.0 scope spelled out, `read` for GET and `write` for every other method,
 * and, on writes, the 403 a credential without `write` receives. Done at bundle time so an
 * operation added later is documented like the others without anyone remembering to.
 */
const SAFE = new Set(['get', 'head']);
function scopeSecurity() {
  let rootSecurity;
  return {
    Root: {
      enter(root) {
        rootSecurity = root.security;
      },
    },
    Operation: {
      leave(operation, { key }) {
        if (operation.security !== undefined || !Array.isArray(rootSecurity)) return;
        const scope = SAFE.has(String(key)) ? 'read' : 'write';
        operation.security = rootSecurity.map((req) => Object.fromEntries(Object.keys(req).map((name) => [name, name === 'oauth2' ? [scope] : []])));
        if (scope === 'read') return;
        operation.responses = operation.responses || {};
        if (!operation.responses['403']) operation.responses['403'] = INSUFFICIENT_SCOPE;
      },
    },
  };
}

const INSUFFICIENT_SCOPE = {
  description: 'The credential may only read (its scopes lack `write`), or the operation is not enabled for the organization.',
  headers: {
    'WWW-Authenticate': {
      description: 'On a missing scope: `Bearer error="insufficient_scope", scope="write"` (RFC 6750 section 3.1).',
      schema: { type: 'string' },
      example: 'Bearer error="insufficient_scope", scope="write"',
    },
  },
  content: {
    'application/problem+json': {
      schema: { $ref: '#/components/schemas/Problem' },
      example: {
        type: '/problems/insufficient-scope',
        title: 'Forbidden',
        status: 403,
        detail: 'This credential may only read: the operation needs the `write` scope.',
        requestId: '3f1b6c1e-8a47-4f57-9a55-3f0a7f2d9c11',
        errors: [{ message: 'This credential may only read: the operation needs the `write` scope.' }],
      },
    },
  },
};

/**
 * Response bodies keep to the contract, in the service and in Prism's dynamic mode (`prism mock
 * -d`, which invents keys for an open schema): every object schema a response reaches is closed
 * (`additionalProperties: false`, or a map that says what it holds), an `allOf` adds no property
 * its closed members do not list (a closed member would refuse it), and an `id` is a uuid.
 */
function closedResponses() {
  const checked = new Set();
  function check(schema, location, resolve, report) {
    if (!schema || typeof schema !== 'object' || checked.has(schema)) return;
    checked.add(schema);
    const at = (node, loc) => (node && node.$ref ? resolve(node) : { node, location: loc });
    if (schema.allOf) {
      const members = schema.allOf.map((m, i) => at(m, location.child(['allOf', i])));
      const closed = members.filter((m) => m.node && m.node.additionalProperties === false);
      for (const m of members) {
        if (!m.node) continue;
        if (m.node.additionalProperties === false) check(m.node, m.location, resolve, report);
        else
          for (const name of Object.keys(m.node.properties || {}))
            for (const c of closed)
              if (!(name in (c.node.properties || {})))
                report({
                  message: `\`${name}\` is added by an allOf to a closed schema that does not list it (list it there).`,
                  location: m.location.child(['properties', name]).key(),
                });
        for (const [name, prop] of Object.entries(m.node.properties || {})) {
          const p = at(prop, m.location.child(['properties', name]));
          check(p.node, p.location, resolve, report);
        }
      }
      return;
    }
    for (const key of ['oneOf', 'anyOf'])
      (schema[key] || []).forEach((m, i) => {
        const p = at(m, location.child([key, i]));
        check(p.node, p.location, resolve, report);
      });
    if (schema.items) {
      const p = at(schema.items, location.child(['items']));
      check(p.node, p.location, resolve, report);
    }
    if (schema.properties) {
      if (schema.additionalProperties === undefined)
        report({ message: 'A response object must be closed: add `additionalProperties: false`.', location: location.key() });
      for (const [name, prop] of Object.entries(schema.properties)) {
        const p = at(prop, location.child(['properties', name]));
        if (name === 'id' && p.node && p.node.type === 'string' && p.node.format !== 'uuid')
          report({ message: 'An `id` is a uuid: add `format: uuid`.', location: p.location.key() });
        check(p.node, p.location, resolve, report);
      }
    }
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      const p = at(schema.additionalProperties, location.child(['additionalProperties']));
      check(p.node, p.location, resolve, report);
    }
  }
  return {
    Response: {
      MediaType: {
        leave(media, { location, resolve, report }) {
          if (!media.schema) return;
          const s = media.schema.$ref ? resolve(media.schema) : { node: media.schema, location: location.child(['schema']) };
          check(s.node, s.location, resolve, report);
        },
      },
    },
  };
}

module.exports = function procurementPlugin() {
  return {
    id: 'procurement',
    decorators: { oas3: { 'expand-filters': expandFilters, 'scope-security': scopeSecurity } },
    rules: { oas3: { 'camel-case-properties': camelCaseProperties, 'error-responses': errorResponses, 'closed-responses': closedResponses } },
  };
};
module.exports.expand = expand;
