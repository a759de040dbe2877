/**
 * CPU per request of openapi-backend's part of a `GET /jobs/:code` (routing, then handleRequest:
 * parse, security handlers, validation, the handler), in-process, without HTTP or a database: a
 * measure that a shared, loaded machine disturbs far less than a load test's throughput. Built
 * for the A/B of the openapi-backend patch (bench/results/2026-11-26-patch-reduction.md).
 *
 *   node bench/handle-request.mjs [--lib <dir of an openapi-backend copy>] [--handoff router|field|none]
 *
 * --handoff router (default): the service's own backend (dist/src/http/backend.js newBackend, the
 *   project's openapi-backend): routed once, the match handed on by its router (routed-once.ts).
 * --handoff field: the request carries its match as `req.operation` (what an earlier patch added
 *   to handleRequest); --handoff none: handleRequest routes the request again itself.
 * Both take the library from --lib (default: the project's), with the service's options.
 * Prints one JSON line: µs of CPU (user + system) per request, over ITERATIONS (20000) after a warm-up.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './setup.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const lib = option('--lib', join(ROOT, 'node_modules', 'openapi-backend'));
const handoff = option('--handoff', 'router');
const ITERATIONS = Number(process.env.ITERATIONS || 20000);
const require = createRequire(import.meta.url);
const backend = require(join(ROOT, 'dist', 'src', 'http', 'backend.js'));
const { loadContract } = require(join(ROOT, 'dist', 'src', 'http', 'contract.js'));

const api =
  handoff === 'router'
    ? backend.newBackend()
    : new (require(lib).default)({
        definition: structuredClone(loadContract()),
        strict: true,
        quick: true,
        validate: true,
        coerceTypes: true,
        customizeAjv: backend.customizeAjv,
        ignoreTrailingSlashes: true,
      });
api.registerSecurityHandler('oauth2', () => ({ caller: 'x' }));
api.registerSecurityHandler('apiKey', () => ({ caller: 'x' }));
api.register({ getJob: (c) => c.request.params, notFound: () => 404, methodNotAllowed: () => 405, validationFail: (c) => c.validation.errors });
await api.init();
api.validator.preCompileRequestValidators();

const headers = {
  host: '127.0.0.1:3000',
  'user-agent': 'autocannon',
  accept: 'application/json',
  'accept-encoding': 'gzip, deflate, br',
  authorization: 'Bearer pk_0123456789abcdef0123456789abcdef',
  connection: 'keep-alive',
  'x-request-id': '5b8e5a4e-1d0e-4c2a-9a43-0c8f3f0d2b11',
};
async function once(i) {
  const path = `/jobs/J-${1000 + (i % 50)}`;
  const operation = api.router.matchOperation({ method: 'GET', path, headers: {} });
  const req = { method: 'GET', path, query: {}, headers, body: undefined };
  if (handoff === 'router') return api.handleRequest(api.router.preRouted(req, operation));
  if (handoff === 'field') return api.handleRequest({ ...req, operation });
  return api.handleRequest(req);
}

for (let i = 0; i < 3000; i++) await once(i);
const start = process.cpuUsage();
for (let i = 0; i < ITERATIONS; i++) {
  const params = await once(i);
  // The handler answers the path parameters: the job's code, whatever the contract names it.
  if (Object.values(params ?? {}).join() !== `J-${1000 + (i % 50)}`) throw new Error(`unexpected answer ${JSON.stringify(params)}`);
}
const used = process.cpuUsage(start);
console.log(JSON.stringify({ lib, handoff, iterations: ITERATIONS, cpuMicrosPerRequest: +((used.user + used.system) / ITERATIONS).toFixed(2) }));
