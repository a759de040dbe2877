import express, { NextFunction, Request, Response } from 'express';
import type pg from 'pg';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';
import type { Db } from './db/knex';
import { makeAuthenticator } from './auth/credentials';
import { CredentialCache } from './auth/credential-cache';
import { authentication } from './auth/middleware';
import { tokenValidationFail } from './auth/token';
import { apiMiddleware, createBackend, recordProblems, routedOperation, routeRequest } from './http/backend';
import { ApiError } from './http/errors';
import { errorMiddleware } from './http/problem';
import { loadContract } from './http/contract';
import { parseQuery } from './http/query';
import { requestId } from './http/request-id';
import { compressResponses } from './http/compression';
import { GENERATED_DIR } from './paths';
import { allHandlers, BATCH_LISTS } from './resources';
import { withFeed } from './feed/emit';
import { rateLimiter } from './http/rate-limit';
import { fairShare, fairShareLimit } from './http/fair-share';
import { inputGuard } from './http/input-guard';
import { corsFor, noStoreWithCredentials, securityHeaders } from './http/security-headers';
import { setServerTimeouts } from './http/timeouts';
import type { Caller } from './auth/caller';
import type { Logger } from 'pino';
import { createLogger, requestLogger } from './ops/log';
import { healthRoutes } from './ops/health';
import { Lifecycle } from './ops/lifecycle';
import { metricsRoute, observeRequests } from './ops/metrics-route';
import { registerPoolMetrics, type PoolStats } from './metrics';

export interface AppOptions {
  db: Db;
  config: Config;
  jwtSecret: string;
  /** Readiness and shutdown state (server.ts shares it with the shutdown sequence). */
  lifecycle?: Lifecycle;
  /** Where request logs go (default: stdout at config.logLevel). */
  logger?: Logger;
}

const BODY_LIMIT = '5mb';
const TOKEN_PATH = '/oauth2/token';

const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/**
 * A body must be JSON (the token endpoint takes a form, per RFC 6749, and answers in its own
 * format). Requests without a body, most of them, pass straight on, and so do requests that match
 * no operation: their answer is the 404 or 405 (a form POSTed to a mistyped token path is told the
 * path is wrong, not that its body should be JSON).
 */
export function jsonBody(): (req: Request, res: Response, next: NextFunction) => void {
  const parseJson = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  const parseForm = express.urlencoded({ extended: false, limit: '16kb' });
  return (req, res, nextOf) => {
    if (!hasBody(req) || !routedOperation(res)) return nextOf();
    // A body the parsers refuse (413, 415, malformed) is the transport's answer, not the
    // operation's: not recorded against it in test mode (src/http/coverage.ts).
    const next = (err?: unknown) => {
      if (err) res.locals.onProblem = undefined;
      nextOf(err);
    };
    if (req.path === TOKEN_PATH) return parseForm(req, res, (err) => (err ? next(err) : parseJson(req, res, next)));
    if (req.is(['application/json', 'application/*+json'])) return parseJson(req, res, next);
    next(
      new ApiError(415, 'unsupported-media-type', 'Unsupported media type', [
        { message: `body: Content-Type must be application/json, not ${req.headers['content-type'] ?? 'missing'}`, field: 'body', rule: 'contentType' },
      ]),
    );
  };
}

export async function createApp({
  db,
  config,
  jwtSecret,
  lifecycle = new Lifecycle(),
  logger = createLogger(config.logLevel),
}: AppOptions): Promise<express.Express> {
  // Credentials found live are cached while revocations reach this instance (credential-cache.ts).
  // LISTEN needs a session of its own: DATABASE_DIRECT_URL when DATABASE_URL is a transaction pooler (PgBouncer).
  const credentials = new CredentialCache(
    config.databaseDirectUrl ? { connectionString: config.databaseDirectUrl } : (db.client.config.connection as pg.ClientConfig),
  );
  await credentials.start();
  const authenticate = makeAuthenticator(db, jwtSecret, credentials);
  const api = await createBackend(
    {
      db,
      validateResponses: config.mode === 'test',
      validationFailFor: { issueToken: tokenValidationFail },
      batchLists: BATCH_LISTS,
    },
    withFeed(allHandlers(jwtSecret)),
  );

  const app = express();
  app.locals.close = () => credentials.close();
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip: the client's address as the proxies named by TRUST_PROXY report it (X-Forwarded-For),
  // else the connection's. The token endpoint's guard counts failures per client id and address.
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', parseQuery);
  app.use(requestId);
  // Before anything writes a body: every response of 1 KiB or more may be compressed.
  app.use(compressResponses());
  app.use(requestLogger(logger));
  app.use(observeRequests);
  setServerTimeouts(app, config.httpRequestTimeoutMs, config.httpHeadersTimeoutMs);
  app.use(securityHeaders());
  const cors = corsFor(config.corsOrigins);
  if (cors) app.use(cors);
  // Probes and metrics: before authentication and body parsing (no credentials, cheap).
  app.locals.lifecycle = lifecycle;
  app.use(healthRoutes(db, lifecycle, config.mode === 'test'));
  app.use(metricsRoute(config.metricsToken));
  registerPoolMetrics(() => (db.client as { pool?: PoolStats }).pool);
  app.use(noStoreWithCredentials);

  // The contract and its docs, without authentication: one middleware with a set of paths (as
  // express routes: any case, an optional trailing slash), not a route per path, which every API
  // request would otherwise walk through.
  // The Redoc page routes each tag to /<tag-slug> and each guide to /section/<slug>. A browser
  // navigating there (HTML preferred, no credentials) gets the page, so links and reloads work;
  // API clients (JSON or */*, or any Authorization) reach the API as usual.
  const docsPage = join(GENERATED_DIR, 'docs', 'index.html');
  const docsRoutes = new Set(((loadContract().tags ?? []) as { name: string }[]).map((t) => '/' + t.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')));
  app.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1).toLowerCase() : req.path.toLowerCase();
    // The root points a newcomer (browser or curl) at the docs and the contract.
    if (path === '/') return res.json({ name: 'Construction Procurement API', docs: '/docs', openapi: '/openapi.json', openapiYaml: '/openapi.yaml' });
    if (path === '/openapi.json') return res.sendFile(join(GENERATED_DIR, 'openapi.json'));
    if (path === '/openapi.yaml') return res.type('application/yaml').sendFile(join(GENERATED_DIR, 'openapi.yaml'));
    if (path !== '/docs') {
      if (!docsRoutes.has(path) && !path.startsWith('/section/')) return next();
      // Content negotiation only on the few docs paths: it is not free on every API request.
      const browser =
        !req.headers.authorization && req.accepts(['application/json', 'text/html']) === 'text/html' && /text\/html/.test(req.headers.accept ?? '');
      if (!browser) return next();
    }
    if (existsSync(docsPage)) return res.sendFile(docsPage);
    next(new ApiError(404, 'not-found', 'Not found', [{ message: 'The docs page has not been built; run `npm run docs`.' }]));
  });

  app.use(routeRequest(api));
  if (config.mode === 'test') app.use(recordProblems());
  // Before the body is read: a bad credential is refused without reading a large body, and a
  // caller over its limits or its organization's share is answered (or waits) before its body
  // is parsed.
  app.use(authentication(authenticate, routedOperation));
  const caller = async (_req: express.Request, res: express.Response) => res.locals.caller as Caller | undefined;
  if (config.rateLimits) app.use(rateLimiter({ db, defaults: { burst: config.rateLimitBurst, hourly: config.rateLimitHourly }, caller }));
  const poolMax = (db.client.config as { pool?: { max?: number } }).pool?.max ?? config.dbPoolMax;
  app.use(fairShare({ perOrganization: fairShareLimit(poolMax), maxQueued: 200, maxWaitMs: 30_000, caller }));
  app.use(jsonBody());
  app.use(inputGuard);
  app.use(apiMiddleware(api));
  app.use(errorMiddleware);
  return app;
}

/** Releases what an app holds besides its database (the credential cache's LISTEN connection). */
export async function closeApp(app: express.Express): Promise<void> {
  await (app.locals.close as (() => Promise<void>) | undefined)?.();
}
