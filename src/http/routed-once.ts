import OpenAPIBackend, { OpenAPIRouter, type Operation, type Request as ApiRequest } from 'openapi-backend';

/**
 * openapi-backend's router, told which operation a request was already matched to. The service
 * routes each request once, before authentication (backend.ts routeRequest), and openapi-backend's
 * handleRequest routes it again through its router's matchOperation: for the request just handed
 * on with its match (`preRouted`), that call answers the match instead of routing again. Any other
 * request (one that matched nothing: handleRequest's own routing answers its 404 or 405) is routed
 * as ever.
 *
 * One request is held, the last handed on, by identity: handleRequest routes synchronously when it
 * is called (no preRoutingHandler is registered), so the match is taken before any other request
 * is handed on; were that to change, a request would only be routed again, never given another's
 * match. (A WeakMap by request cost about 2 µs of CPU more per request: bench/handle-request.mjs.)
 */
export class PreRoutedRouter extends OpenAPIRouter {
  private handedOn: { req: ApiRequest; operation: Operation } | undefined;

  /** `req`, which handleRequest, called next, is to take as a request for `operation` without routing it again. */
  preRouted(req: ApiRequest, operation: Operation | undefined): ApiRequest {
    this.handedOn = operation && { req, operation };
    return req;
  }

  override matchOperation(req: ApiRequest): Operation | undefined;
  override matchOperation(req: ApiRequest, strict: boolean): Operation;
  override matchOperation(req: ApiRequest, strict?: boolean): Operation | undefined {
    const handedOn = this.handedOn;
    if (handedOn?.req === req) {
      this.handedOn = undefined;
      return handedOn.operation;
    }
    return super.matchOperation(req, strict ?? false);
  }
}

/**
 * openapi-backend whose router is a PreRoutedRouter. Its init() builds a plain router (and hands it
 * to the validator) from the dereferenced definition: the PreRoutedRouter takes its place, for
 * both, from the same definition and settings.
 */
export class RoutedOnceBackend extends OpenAPIBackend {
  declare router: PreRoutedRouter;

  override async init(): Promise<this> {
    await super.init();
    this.router = new PreRoutedRouter({ definition: this.definition, apiRoot: this.apiRoot, ignoreTrailingSlashes: this.ignoreTrailingSlashes });
    if (this.validator) this.validator.router = this.router;
    return this;
  }
}
