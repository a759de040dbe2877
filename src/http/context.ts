import type { IncomingMessage } from 'node:http';
import type { Operation } from 'openapi-backend';
import type { Caller } from '../auth/caller';

/**
 * What the pipeline (pipeline.ts) learns about one request, in one typed object: created by its
 * first step, filled in by the steps that learn each part, read through `contextOf`. Nothing else
 * about a request is kept on `req`, `res` or `res.locals`.
 */
export interface RequestContext {
  /** Echoed or made up by the first step (X-Request-Id on every response). */
  readonly requestId: string;
  /** The contract's operation the request is for (routing step); undefined when it matches none. */
  operation?: Operation;
  /** Its operationId, or the probe's or metrics' own name (logs and metrics label requests by it). */
  operationId?: string;
  /** The API version the request runs at (api-version.ts): its `Api-Version` header, else the credential's pin, else the newest. */
  apiVersion?: string;
  /** Who is calling (authentication step): organization, user, credential type and id, scopes. */
  caller?: Caller;
  /** The Idempotency-Key of a write, as sent (idempotency.ts reads and checks it). */
  idempotencyKey?: string;
  /** Test mode: records the status of a problem answered for the operation (coverage.ts). */
  onProblem?: (status: number) => void;
  /** The request has a log line (request-log.ts), which is to carry this unexpected error. */
  logged: boolean;
  unexpectedError?: unknown;
}

const CONTEXT = Symbol('requestContext');
type Carrier = IncomingMessage & { [CONTEXT]?: RequestContext };

/** The first step: the request's context, once. */
export function createContext(req: IncomingMessage, requestId: string): RequestContext {
  const context: RequestContext = { requestId, logged: false };
  (req as Carrier)[CONTEXT] = context;
  return context;
}

/**
 * The request's context. A request that never went through the pipeline's first step (an app
 * assembled from a few steps in a test) gets an empty one, so every reader can rely on it.
 */
export function contextOf(req: IncomingMessage): RequestContext {
  return (req as Carrier)[CONTEXT] ?? createContext(req, '');
}

/** The caller, for steps that take it as a function (rate limits, fair share). */
export const callerOf = async (req: IncomingMessage): Promise<Caller | undefined> => contextOf(req).caller;
