import type OpenAPIBackend from 'openapi-backend';
import { ValidationContext, type Context, type Document, type Operation, type Request as ApiRequest } from 'openapi-backend';
import Ajv from 'ajv';
import type { ErrorObject, Options as AjvOptions } from 'ajv';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, badRequest, methodNotAllowed, notFound } from '../errors';
import type { HandlerMap, OperationId } from './handler';
import { loadContract, HTTP_METHODS } from './contract';
import { byElement, toProblemItems, validationProblem } from './validation-errors';
import { contextOf } from './context';
import { NONE_REJECTED, type RejectedElements } from '../db/batch';
import { RoutedOnceBackend } from './routed-once';
import { malformedPathError } from './malformed-path';
import { recordCoverage } from './coverage';
import { operationSteps, type OperationDeps, type Reply } from './operation';

/** What the service's backend needs: the operations' steps' (operation.ts), and the batches' and validation failures'. */
export interface BackendDeps extends OperationDeps {
  /** Answers a request whose validation failed, when an operation has its own error format. */
  validationFailFor?: Partial<Record<OperationId, ValidationFail>>;
  /**
   * The batches, by the property of their body that holds the list (`inputs`): the elements of the
   * list that the schema rejects are the operation's to report, with its own rejections, in the
   * batch format (one 400 whose `errors[0].message` has a line `Position <n>: ...` per element).
   */
  batchLists?: Partial<Record<OperationId, string>>;
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

export function customizeAjv(_ajv: Ajv, opts: AjvOptions, context: ValidationContext): Ajv {
  const isParams = context === ValidationContext.Params;
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
export function newBackend(contract: unknown = loadContract()): RoutedOnceBackend {
  return new RoutedOnceBackend({
    // A bundled contract (generated/), whose shape `npm run lint:api` checks.
    definition: structuredClone(contract) as Document,
    strict: true,
    // Validators are compiled as needed (createBackend precompiles). (The document itself is
    // checked by `npm run lint:api`.)
    quick: true,
    validate: true,
    coerceTypes: true,
    customizeAjv,
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
  api.registerSecurityHandler('oauth2', authenticated);
  api.registerSecurityHandler('apiKey', authenticated);
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

/** An operation's own answer to a request the contract's validation refused (the token endpoint's). */
export type ValidationFail = (req: Request, res: Response, errors: ErrorObject[]) => void;

/**
 * What the service and the mock's front answer alike to a request the contract's validation
 * refused: the operation's own format where it has one; for a batch, the errors of the request
 * itself as any request's, and errors only inside elements handed to `batch`, which reports them
 * with the elements it rejects; otherwise the 400 naming every error.
 */
export function registerValidationFail(
  api: OpenAPIBackend,
  own: Partial<Record<OperationId, ValidationFail>>,
  batchLists: Partial<Record<OperationId, string>>,
  batch: (c: Context, req: Request, res: Response, list: string, elements: RejectedElements) => Promise<unknown>,
): void {
  api.register({
    validationFail: async (c: Context, req: Request, res: Response) => {
      const operationId = c.operation.operationId as OperationId;
      const errors = (c.validation.errors ?? []) as ErrorObject[];
      const answer = own[operationId];
      if (answer) return answer(req, res, errors);
      const list = batchLists[operationId];
      if (!list) throw validationProblem(errors);
      const { request, elements } = byElement(errors, list);
      if (request.length) throw badRequest(toProblemItems(request));
      return batch(c, req, res, list, elements);
    },
  });
}

export async function createBackend(deps: BackendDeps, handlers: HandlerMap): Promise<RoutedOnceBackend> {
  const api = newBackend(deps.version?.contract);

  registerRequestChecks(api);
  registerValidationFail(api, deps.validationFailFor ?? {}, deps.batchLists ?? {}, (c, req, res, _list, elements) =>
    operations.get(c.operation.operationId as string)!(c, req, res, elements),
  );

  // Each operation's steps (operation.ts), assembled once openapi-backend has read the contract.
  const operations = new Map<string, (c: Context, req: Request, res: Response, rejected: RejectedElements) => Promise<void>>();
  for (const operationId of Object.keys(handlers)) {
    api.register(operationId, (c: Context, req: Request, res: Response) => operations.get(operationId)!(c, req, res, NONE_REJECTED));
  }

  await api.init();
  const operation = operationSteps(api, deps, handlers as unknown as Record<string, (ctx: unknown) => Promise<Reply>>);
  for (const operationId of Object.keys(handlers) as OperationId[]) operations.set(operationId, operation(operationId));
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
export function apiMiddleware(
  newest: RoutedOnceBackend,
  olderVersions?: ReadonlyMap<string, RoutedOnceBackend>,
): (req: Request, res: Response, next: NextFunction) => void {
  // An older version's operations by id: openapi-backend's getOperation searches its list at every call.
  const byId = new Map<RoutedOnceBackend, Map<string, Operation>>();
  const operationOf = (api: RoutedOnceBackend, id: string): Operation | undefined => {
    let ops = byId.get(api);
    if (!ops) byId.set(api, (ops = new Map(api.getOperations().map((o) => [o.operationId!, o]))));
    return ops.get(id);
  };
  return (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const context = contextOf(req);
    // A request at an older version goes to that version's backend, as its contract's operation.
    const older = context.apiVersion === undefined ? undefined : olderVersions?.get(context.apiVersion);
    const api = older ?? newest;
    const operation = older && context.operation ? operationOf(older, context.operation.operationId!) : context.operation;
    const request = api.router.preRouted(
      { method, path: req.path, query: req.query as ApiRequest['query'], headers: req.headers as ApiRequest['headers'], body: req.body },
      operation,
    );
    api.handleRequest(request, req, res).catch((err) => next((err instanceof URIError && malformedPathError(operation, req.path)) || err));
  };
}
