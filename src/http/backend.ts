import type OpenAPIBackend from 'openapi-backend';
import type { Context, Operation } from 'openapi-backend';
import Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';
import type { Db } from '../db/knex';
import type { Config } from '../config';
import { ApiError, badRequest, methodNotAllowed, notFound } from '../errors';
import type { Caller, HandlerMap, OperationId } from './handler';
import { loadContract, HTTP_METHODS } from './contract';
import { byElement, toProblemItems, validationProblem } from './validation-errors';
import { recordCoverage } from './coverage';
import { JsonParts, JsonStream } from '../db/json';
import { sendParts, sendWhole } from './send-parts';
import { ChangeCollector, writeTransaction } from '../feed/append';
import { idempotent } from './idempotency';
import { contextOf } from './context';
import { NONE_REJECTED, type RejectedElements } from '../db/batch';
import { conditionalRequests, type ObjectsOfWrites } from './conditional';
import { replyLinks } from './links';
import { originOf } from './origin';
import { RoutedOnceBackend } from './routed-once';
import { malformedPathError } from './malformed-path';

const isWrite = (method: string) => method !== 'GET' && method !== 'HEAD';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The reply's status and its own headers. */
function setStatusAndHeaders(res: Response, reply: { status: number; headers?: Record<string, string> }): void {
  res.status(reply.status);
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
}

export interface BackendDeps {
  db: Db;
  /** The service's settings, handed to every handler. */
  config: Config;
  /** Validate every response against the contract (test mode). */
  validateResponses: boolean;
  /** Answers a request whose validation failed, when an operation has its own error format. */
  validationFailFor?: Partial<Record<OperationId, (req: Request, res: Response, errors: ErrorObject[]) => void>>;
  /**
   * The batches, by the property of their body that holds the list (`inputs`): the elements of the
   * list that the schema rejects are the operation's to report, with its own rejections, in the
   * batch format (one 400 whose `errors[0].message` has a line `Position <n>: ...` per element).
   */
  batchLists?: Partial<Record<OperationId, string>>;
  /** The object each single-object write changes, for If-Match (src/http/conditional.ts). */
  objects?: ObjectsOfWrites;
}

/**
 * ajv for openapi-backend: all errors, real formats, arrays from single/comma query values.
 *
 * One instance per kind (parameters, which coerce, and everything else), shared by every
 * operation: openapi-backend asks for a fresh instance for each operation's body and parameters,
 * and a few hundred ajv instances, each with its own formats and caches, were most of the
 * process's heap. The schemas compiled into them carry no `$id`, so they never collide.
 */
const sharedAjv = new Map<boolean, Ajv>();

export function customizeAjv(_ajv: Ajv, opts: Record<string, unknown>, context: string): Ajv {
  const isParams = context === 'paramsValidator';
  const shared = sharedAjv.get(isParams);
  if (shared) return shared;
  const ajv = new Ajv({
    ...opts,
    allErrors: true,
    // Errors carry the rejected value, so a 400 can name it (validation-errors.ts).
    verbose: true,
    strict: false,
    coerceTypes: isParams ? 'array' : false,
    // A JSON number beyond the double range (1e309) parses as Infinity: not a number the service
    // can store or send back (JSON has no Infinity). Not for the parameters: there ajv 8 coerces
    // "1e400" to Infinity and then skips the value's own checks under strictNumbers (limit=1e400
    // passed `maximum` and reached knex as no limit at all); without it, `maximum` refuses Infinity.
    strictNumbers: !isParams,
    useDefaults: isParams,
  });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  sharedAjv.set(isParams, ajv);
  return ajv;
}

export function allowedMethods(api: OpenAPIBackend, path: string): string[] {
  const allowed: string[] = [];
  for (const m of HTTP_METHODS) {
    try {
      if (api.router.matchOperation({ method: m, path, headers: {} }, false)) allowed.push(m.toUpperCase());
    } catch {
      /* not this method */
    }
  }
  return allowed;
}

/**
 * The service's openapi-backend, before handlers: the contract, strict, validating and coercing
 * with our ajv, taking the match of a request routed before (routed-once.ts).
 */
export function newBackend(): RoutedOnceBackend {
  return new RoutedOnceBackend({
    definition: structuredClone(loadContract()) as any,
    strict: true,
    // Validators are compiled as needed (createBackend precompiles). (The document itself is
    // checked by `npm run lint:api`.)
    quick: true,
    validate: true,
    coerceTypes: true,
    customizeAjv: customizeAjv as any,
    ignoreTrailingSlashes: true,
  });
}

/**
 * What the service and the mock's front (src/mock/front.ts) answer alike: the security handlers
 * (authentication is a pipeline step before the body is read, src/http/authentication.ts; they only
 * say whether it found a caller), and the 404, 405 and 401 of a request no operation takes.
 */
export function registerRequestChecks(api: OpenAPIBackend): void {
  const authenticated = (c: Context, req: Request) => contextOf(req).caller ?? false;
  api.registerSecurityHandler('oauth2', authenticated as any);
  api.registerSecurityHandler('apiKey', authenticated as any);
  api.register({
    notFound: async (c: Context, req: Request) => {
      throw notFound(`No operation matches ${req.method} ${req.path}.`);
    },
    methodNotAllowed: async (c: Context, req: Request) => {
      throw methodNotAllowed(req.method, req.path, allowedMethods(api, req.path));
    },
    unauthorizedHandler: async () => {
      throw new ApiError(401, 'unauthorized', 'Unauthorized', [{ message: 'A valid bearer credential is required.' }], { 'WWW-Authenticate': 'Bearer' });
    },
  });
}

export async function createBackend(deps: BackendDeps, handlers: HandlerMap): Promise<RoutedOnceBackend> {
  const api = newBackend();

  registerRequestChecks(api);
  api.register({
    validationFail: async (c: Context, req: Request, res: Response) => {
      const operationId = c.operation.operationId as OperationId;
      const own = deps.validationFailFor?.[operationId];
      if (own) return own(req, res, (c.validation.errors ?? []) as ErrorObject[]);
      const list = deps.batchLists?.[operationId];
      if (!list) throw validationProblem(c.validation.errors as any);
      // A batch: errors of the request itself are answered here, as any request's; errors only
      // inside elements go to the operation, which reports them with the elements it rejects.
      const { request, elements } = byElement(c.validation.errors as any, list);
      if (request.length) throw badRequest(toProblemItems(request));
      return operations.get(operationId)!(c, req, res, elements);
    },
  });

  const operations = new Map<string, (c: Context, req: Request, res: Response, rejected: RejectedElements) => Promise<unknown>>();
  const conditional = conditionalRequests((id) => api.getOperation(id), handlers as any, deps.objects ?? {});
  const links = replyLinks(
    (id) => api.getOperation(id),
    () => api.getOperations(),
  );
  for (const [operationId, handler] of Object.entries(handlers)) {
    const operation = async (c: Context, req: Request, res: Response, rejected: RejectedElements) => {
      // Authenticated and its scopes checked before the body was read (src/http/authentication.ts).
      const caller: Caller | undefined = contextOf(req).caller;
      let reply!: { status: number; body?: unknown; headers?: Record<string, string> };
      try {
        const ctx = (db: unknown, changes: ChangeCollector) => {
          const context = {
            operationId,
            db,
            changes,
            caller,
            params: c.request.params ?? {},
            query: c.request.query ?? {},
            body: c.request.requestBody,
            rejected,
            config: deps.config,
            req,
            res,
          };
          return conditional
            .around(operationId as OperationId, context, () => (handler as any)(context))
            .then((r) => links.add(operationId, req, context.query, r));
        };
        // Every authenticated write runs in one transaction whose changes enter the feed as its
        // last statement (src/feed/append.ts): a change and its feed entry commit together.
        reply =
          caller && isWrite(req.method)
            ? await writeTransaction(
                deps.db,
                caller.organizationId,
                (trx, changes) => idempotent(trx, caller.organizationId, req, c.request.requestBody, () => ctx(trx, changes)),
                originOf(caller, req),
              )
            : await ctx(deps.db, new ChangeCollector());
      } catch (err) {
        if (reply?.body instanceof JsonStream) await reply.body.close();
        throw err;
      }
      // In production a streamed page, or one held in parts, goes out part by part; tests validate it whole first.
      if (!deps.validateResponses && (reply.body instanceof JsonStream || reply.body instanceof JsonParts)) {
        setStatusAndHeaders(res, reply);
        res.setHeader('Content-Type', JSON_TYPE);
        return reply.body instanceof JsonStream ? sendParts(res, reply.body.parts()) : sendWhole(res, reply.body.parts);
      }
      const text =
        reply.body === undefined
          ? ''
          : typeof reply.body === 'string'
            ? reply.body
            : reply.body instanceof JsonStream
              ? await reply.body.text()
              : reply.body instanceof JsonParts
                ? reply.body.text()
                : JSON.stringify(reply.body);
      if (deps.validateResponses) {
        const parsed = text === '' ? undefined : JSON.parse(text);
        const result = api.validateResponse(parsed, c.operation, reply.status);
        if (result.errors?.length) {
          const detail = result.errors.map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
          throw new ApiError(500, 'response-contract-violation', 'Response does not match the contract', [
            { message: `${operationId} ${reply.status}: ${detail}` },
          ]);
        }
        recordCoverage(operationId, reply.status);
      }
      setStatusAndHeaders(res, reply);
      if (reply.status === 204 || text === '') return res.end();
      res.setHeader('Content-Type', JSON_TYPE);
      // The length, also of a HEAD answer, which sends no body (RFC 9110 9.3.2); compression
      // (http/compression.ts) replaces it when it compresses, and would otherwise send it chunked.
      res.setHeader('Content-Length', Buffer.byteLength(text));
      return res.end(text);
    };
    operations.set(operationId, operation);
    api.register(operationId, (c: Context, req: Request, res: Response) => operation(c, req, res, NONE_REJECTED));
  }

  await api.init();
  conditional.check(Object.keys(handlers) as OperationId[]);
  links.check(Object.keys(handlers));
  // Request validators are compiled up front (no first-request stall); response validators only
  // in test mode, where every answer is validated: production does not carry them (~25 MiB).
  api.validator.preCompileRequestValidators();
  if (deps.validateResponses) api.validator.preCompileResponseValidators();
  return api;
}

/** The operation a request is for, by openapi-backend's router (HEAD as GET); undefined for none. */
export function operationOf(api: OpenAPIBackend, req: Request): Operation | undefined {
  return api.router.matchOperation({ method: req.method === 'HEAD' ? 'GET' : req.method, path: req.path, headers: {} });
}

/**
 * Routes each request once, by openapi-backend's router, before anything needs to know its
 * operation: authentication (does it need a credential?), the logs and metrics (its operationId),
 * test-mode coverage, and handleRequest itself, which is handed the match (routed-once.ts)
 * instead of routing again. A request that matches nothing goes on unrouted: handleRequest's own
 * routing answers its 404 or 405.
 */
export function routeRequest(api: OpenAPIBackend): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const operation = operationOf(api, req);
    const context = contextOf(req);
    context.operation = operation;
    if (operation) context.operationId = operation.operationId;
    next();
  };
}

/**
 * Test mode: problems answered for an operation are recorded against it, and flagged when the
 * operation does not document their status (src/http/coverage.ts).
 */
export function recordProblems(): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const operation = contextOf(req).operation;
    if (operation) {
      const documented = Object.keys(operation.responses ?? {});
      contextOf(req).onProblem = (status: number) => recordCoverage(operation.operationId as string, status, documented.includes(String(status)));
    }
    next();
  };
}

/**
 * The API itself: openapi-backend's handleRequest routes, checks security, validates and coerces,
 * and calls the operation's handler. It is given express's parsed query (our qs settings, see
 * query.ts) and body, and the operation routeRequest matched. HEAD is answered as GET (express
 * sends the headers without the body). openapi-backend's parse of a path value that is not valid
 * percent-encoding throws a URIError: the client's 400, naming the parameter (malformed-path.ts).
 */
export function apiMiddleware(api: RoutedOnceBackend): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const { operation } = contextOf(req);
    const request = api.router.preRouted({ method, path: req.path, query: req.query as any, headers: req.headers as any, body: req.body }, operation);
    api.handleRequest(request, req, res).catch((err) => next((err instanceof URIError && malformedPathError(operation, req.path)) || err));
  };
}
