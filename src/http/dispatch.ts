import type OpenAPIBackend from 'openapi-backend';
import type { Context, Operation, Request as BackendRequest } from 'openapi-backend';
import { createRequestValidator } from './request-validation';

type Handler = (context: Context, ...args: unknown[]) => unknown;

/**
 * Answers a request as openapi-backend's `handleRequest` does, in the same order and with the same
 * parts: its router matches the operation, the registered security handlers decide, its compiled
 * validators validate and coerce (through request-validation.ts, its validateRequest with the
 * per-operation work done once), and the registered handler answers; failures go to the
 * registered notFound, methodNotAllowed, unauthorizedHandler and validationFail handlers (strict
 * mode: a missing one is an error).
 *
 * Why not `handleRequest` itself: it is written for every configuration (pre- and post-hooks,
 * parallel security handlers, a parse of the request before routing, another after it, another
 * after coercion), and on the benchmark its orchestration cost 8-16 % of the throughput of a
 * single read (`GET /jobs/:code`), more than routing and validation themselves. This one does
 * what our configuration uses: security requirements are read off each operation once, the
 * request is parsed once it is validated, and the hooks we do not register are not looked for.
 * `test/unit/dispatch.test.ts` checks that both answer every kind of request alike.
 */
export function createDispatch(api: OpenAPIBackend): (req: BackendRequest, ...args: unknown[]) => Promise<unknown> {
  const handlers = api.handlers as Record<string, Handler | undefined>;
  const securityHandlers = api.securityHandlers as Record<string, Handler | undefined>;
  for (const hook of ['preRoutingHandler', 'postSecurityHandler', 'preOperationHandler', 'postResponseHandler']) {
    if (handlers[hook]) throw new Error(`createDispatch: ${hook} is not supported; register it before using it here`);
  }
  if (typeof api.validate === 'function' || !api.validate || !api.validator.coerceTypes) {
    throw new Error('createDispatch: expects validation on, with type coercion');
  }

  // Each operation's security requirements (the document's global ones included by the router):
  // any one requirement satisfied authorizes; within one, every scheme must be.
  const security = new Map<Operation, { requirements: string[][]; schemes: string[] }>();
  for (const op of api.router.getOperations()) {
    const requirements = (op.security ?? []).map((r) => Object.keys(r));
    security.set(op, { requirements, schemes: [...new Set(requirements.flat())] });
  }

  // Every scheme's handler, in parallel as handleRequest runs them; a rejection is a failed scheme.
  const securityResults = async (schemes: string[], context: Context, args: unknown[]): Promise<Record<string, unknown>> => {
    const results: Record<string, unknown> = {};
    const failed = (error: unknown) => ({ error: error || new Error('security handler rejected') });
    const pending: Promise<unknown>[] = [];
    for (const name of schemes) {
      const handler = securityHandlers[name];
      results[name] = undefined;
      if (!handler) continue;
      try {
        const result = handler(context, ...args);
        if (result instanceof Promise) pending.push(result.then((value) => (results[name] = value), (error) => (results[name] = failed(error))));
        else results[name] = result;
      } catch (error) {
        results[name] = failed(error);
      }
    }
    if (pending.length > 0) await Promise.all(pending);
    return results;
  };
  const validateRequest = createRequestValidator(api);
  const satisfied = (result: unknown) => Boolean(result) && !(typeof result === 'object' && (result as { error?: unknown }).error);

  return async function dispatch(req: BackendRequest, ...args: unknown[]): Promise<unknown> {
    const context = { api } as Context;
    let operation: Operation;
    try {
      operation = api.router.matchOperation(req, true)!;
    } catch (err) {
      context.request = api.router.parseRequest(req);
      await handlers.postRoutingHandler?.(context, ...args);
      const notFound = handlers['404'] ?? handlers.notFound;
      const handler = (err as Error).message.startsWith('405') ? handlers['405'] ?? handlers.methodNotAllowed ?? notFound : notFound;
      if (!handler) throw err;
      return handler(context, ...args);
    }
    context.operation = operation;
    await handlers.postRoutingHandler?.(context, ...args);

    // As handleRequest: `authorized` is false for an operation without requirements, and not enforced.
    const { requirements, schemes } = security.get(operation) ?? { requirements: [], schemes: [] };
    const results = schemes.length > 0 ? await securityResults(schemes, context, args) : {};
    const authorized = requirements.some((names) => names.every((name) => satisfied(results[name])));
    context.security = { ...results, authorized };
    if (!authorized && requirements.length > 0) {
      const unauthorized = handlers.unauthorizedHandler;
      if (!unauthorized) throw Error(`401-unauthorized: ${operation.operationId} request did not satisfy security requirements`);
      return unauthorized(context, ...args);
    }

    context.validation = validateRequest(req, operation);
    if (context.validation.errors) {
      const validationFail = handlers['400'] ?? handlers.validationFail;
      if (!validationFail) throw Error(`400-validationFail: ${operation.operationId} request failed validation`);
      return validationFail(context, ...args);
    }
    context.request = api.router.parseRequest(context.validation.coerced, operation);

    const handler = handlers[operation.operationId!];
    if (!handler) {
      const notImplemented = handlers['501'] ?? handlers.notImplemented;
      if (!notImplemented) throw Error(`501-notImplemented: ${operation.operationId} no handler registered`);
      return notImplemented(context, ...args);
    }
    return handler(context, ...args);
  };
}
