import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import type { Authenticator } from '../auth/credentials';
import { requestId } from './request-id';
import { singleHost } from './host-header';
import { compressResponses } from './compression';
import { requestLogger } from './request-log';
import { metricsRoute, observeRequests } from './metrics-route';
import { corsFor, noStoreWithCredentials, securityHeaders } from './security-headers';
import { docsAndContract } from './docs';
import { apiMiddleware, recordProblems, routeRequest } from './backend';
import { authentication } from './authentication';
import { rateLimiter } from './rate-limit';
import { jsonBody } from './body';
import { inputGuard } from './input-guard';
import { fairShare, fairShareLimit } from './fair-share';
import { problemResponder, type OwnProblemFormats } from './problem';
import { callerOf, contextOf } from './context';
import type { RoutedOnceBackend } from './routed-once';
import { deprecatedUsageStep, pinnedVersion, requestedVersion, versionContracts } from './api-version';

export interface PipelineDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** openapi-backend with every operation's handler (http/backend.ts createBackend). */
  api: RoutedOnceBackend;
  /** The backends of the older API versions still served, by version (src/versions/). */
  olderApis?: ReadonlyMap<string, RoutedOnceBackend>;
  authenticate: Authenticator;
  /** GET /healthz and /readyz, answered before anything costly (resources/health). */
  probes: RequestHandler;
  /** Operations that answer their client errors in their own format (the token endpoint). */
  ownProblemFormats: OwnProblemFormats;
  /**
   * Operations whose only statement is a coalesced single read (resources/crud-handlers.ts
   * readsOnlyCoalesced): bounded to one statement of a kind at a time, they are not held to the
   * fair share. (At 32 connections, single reads queued there cost 35 % of their throughput while
   * connections stood idle: docs/performance.md, session 26.)
   */
  coalescedReads?: ReadonlySet<string>;
}

/** A step of the pipeline, made when the app is assembled (false: not used with these settings). */
export type PipelineStep = () => RequestHandler | ErrorRequestHandler | false | undefined;

/**
 * Every request goes through these steps, in this order (one line each, with its reason), by name
 * (the mock's front, src/mock/front.ts, runs the same steps and names those it leaves out). What a
 * step learns about the request goes into the request's context (context.ts), created by the first.
 */
export function pipelineSteps(deps: PipelineDeps): Record<string, PipelineStep> {
  const { config, db, logger, api, olderApis, authenticate, probes, ownProblemFormats, coalescedReads = new Set<string>() } = deps;
  const poolMax = () => (db.client.config as { pool?: { max?: number } }).pool?.max ?? config.dbPoolMax;
  return {
    // The request's context and id: everything after may log it or answer with it.
    requestId: () => requestId,
    // The API version the request names (Api-Version; an unknown or sunset one is a 400): every answer says its version.
    requestedVersion: () => requestedVersion(),
    // One Host header (RFC 9112 3.2): two are a 400 before anything acts on either.
    singleHost: () => singleHost,
    // Compression (gzip or brotli) of bodies of 1 KiB or more the client accepts: before anything writes a body.
    compression: () => compressResponses(),
    // One log line per request, when it is finished or aborted.
    requestLog: () => requestLogger(logger),
    // Request counts and durations by operation, for /metrics.
    observeRequests: () => observeRequests,
    // Headers every answer carries (nosniff, frame and referrer policy, ...).
    securityHeaders: () => securityHeaders(),
    // CORS for the configured browser origins (preflights answered here).
    cors: () => corsFor(config.corsOrigins),
    // Probes: no credentials, cheap, before anything that could wait on the database.
    probes: () => probes,
    // GET /metrics with its own bearer token (absent without METRICS_TOKEN).
    metrics: () => metricsRoute(config.metricsToken),
    // Answers to credentialed requests are not stored by shared caches.
    noStoreWithCredentials: () => noStoreWithCredentials,
    // The contract and the docs page, without authentication.
    docsAndContract: () => docsAndContract(),
    // Each version's contract, /openapi/<version>.json and .yaml.
    versionContracts: () => versionContracts(),
    // The request's operation, matched once (everything after reads it from the context).
    routeRequest: () => routeRequest(api),
    // Test mode: problems answered for an operation count towards its coverage.
    recordProblems: () => config.mode === 'test' && recordProblems(),
    // Credentials and scopes, before the body is read: a refused request sends its body for nothing.
    authentication: () => authentication(authenticate),
    // Without Api-Version, the version the credential is pinned to.
    pinnedVersion: () => pinnedVersion(),
    // The caller's and its organization's rate limits, before the body is read.
    rateLimits: () => config.rateLimits && rateLimiter({ db, defaults: { burst: config.rateLimitBurst, hourly: config.rateLimitHourly }, caller: callerOf }),
    // The body, JSON (or the form of an operation that takes one), within BODY_LIMIT.
    jsonBody: () => jsonBody(),
    // Input no resource can store (NUL bytes, dropped query keys, nesting too deep).
    inputGuard: () => inputGuard,
    // The organization's fair share of the database pool, taken once the body has arrived: slow
    // uploads hold only their own sockets, not their organization's slots.
    fairShare: () =>
      fairShare({
        perOrganization: fairShareLimit(poolMax()),
        poolSize: poolMax(),
        maxQueued: 200,
        maxWaitMs: 30_000,
        caller: callerOf,
        unshared: (req) => coalescedReads.has(contextOf(req).operationId ?? ''),
      }),
    // Deprecated usage (a deprecated version, operation, parameter or field): announced, counted, listed.
    deprecatedUsage: () => deprecatedUsageStep(db, logger),
    // openapi-backend: security, validation, the operation's handler and its reply (at the request's version).
    api: () => apiMiddleware(api, olderApis),
    // Every error, as one problem body (or the operation's own format).
    problemResponder: () => problemResponder(ownProblemFormats),
  };
}

/** The pipeline's steps, made, in order, as one handler (see oneHandler). */
export function pipeline(deps: PipelineDeps): RequestHandler {
  return oneHandler(
    Object.values(pipelineSteps(deps))
      .map((make) => make())
      .filter((s): s is RequestHandler | ErrorRequestHandler => !!s),
  );
}

/**
 * Steps run one after another as express's router runs the handlers given to `app.use`: a step
 * runs when the one before calls `next()`; an error (`next(err)`, a throw, a rejected promise)
 * skips to the next error handler (four parameters), which error-free requests skip; after the
 * last step, the app's own `next` (express's final handler). Mounted as ONE handler: the router
 * did its own work for each of the twenty-odd steps of every request (its layer walk, path match
 * and prefix trim, a promise check), about as much as the cheaper steps themselves. None of the
 * steps has a path of its own: each looks at the request itself.
 */
export function oneHandler(steps: readonly (RequestHandler | ErrorRequestHandler)[]): RequestHandler {
  return (req, res, done) => {
    let at = 0;
    const next = (err?: unknown): void => {
      // 'route' and 'router' are the router's own signals: nothing to skip here, or leave the steps.
      if (err === 'router') return done();
      const failed = err && err !== 'route' ? err : undefined;
      while (at < steps.length) {
        const step = steps[at++];
        if ((step.length === 4) !== (failed !== undefined)) continue;
        try {
          const returned: unknown = failed !== undefined ? (step as ErrorRequestHandler)(failed, req, res, next) : (step as RequestHandler)(req, res, next);
          if (returned instanceof Promise) returned.then(undefined, next);
        } catch (thrown) {
          next(thrown);
        }
        return;
      }
      done(failed);
    };
    next();
  };
}
