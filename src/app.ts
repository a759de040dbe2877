import express from 'express';
import type pg from 'pg';
import type { Config } from './config';
import type { Db } from './db/knex';
import { makeAuthenticator } from './auth/credentials';
import { CredentialCache } from './auth/credential-cache';
import { createBackend } from './http/backend';
import { pipeline } from './http/pipeline';
import { contractOf, movesOf, servedVersions } from './versions/registry';
import { prepareDeprecations } from './versions/deprecations';
import { usageSettled } from './versions/usage';
import { parseQuery } from './http/query';
import { setServerTimeouts } from './http/timeouts';
import { allHandlers, BATCH_LISTS, FEED_BY_HANDLER, FEED_OPERATIONS, FEED_READS, OBJECT_WRITES, OWN_PROBLEM_FORMATS, VALIDATION_FAIL_FOR } from './resources';
import type { OperationId } from './http/handler';
import { healthRoutes } from './resources/health/handlers';
import { readsOnlyCoalesced } from './resources/crud-handlers';
import type { Logger } from 'pino';
import { createLogger } from './ops/log';
import { Lifecycle } from './ops/lifecycle';
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
  const backendDeps = {
    db,
    config,
    validateResponses: config.mode === 'test',
    validationFailFor: VALIDATION_FAIL_FOR,
    batchLists: BATCH_LISTS,
    objects: OBJECT_WRITES,
    emitters: FEED_OPERATIONS,
    reads: FEED_READS,
    recordedByHandler: new Set(Object.keys(FEED_BY_HANDLER) as OperationId[]),
  };
  const handlers = allHandlers(jwtSecret);
  const api = await createBackend(backendDeps, handlers);
  // Every older version still served: the same handlers behind its own contract (src/versions/).
  const olderApis = new Map<string, Awaited<ReturnType<typeof createBackend>>>();
  for (const { version } of servedVersions().slice(1))
    olderApis.set(version, await createBackend({ ...backendDeps, version: { contract: contractOf(version), moves: movesOf(version)! } }, handlers));
  // What each version's contract marks deprecated, found now rather than by a request.
  prepareDeprecations();

  const app = express();
  // The deprecated uses still being counted are stored before the pool closes (a graceful
  // shutdown loses none; src/versions/usage.ts), then the credential cache lets go.
  app.locals.close = async () => {
    await usageSettled();
    await credentials.close();
  };
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip: the client's address as the proxies named by TRUST_PROXY report it (X-Forwarded-For),
  // else the connection's. The token endpoint's guard counts failures per client id and address.
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', parseQuery);
  setServerTimeouts(app, config.httpRequestTimeoutMs, config.httpHeadersTimeoutMs);
  // Readiness and shutdown state, for the readiness operation (resources/health).
  app.locals.lifecycle = lifecycle;
  registerPoolMetrics(() => (db.client as { pool?: PoolStats }).pool);
  const probes = healthRoutes(db, lifecycle, config.mode === 'test');
  const coalescedReads = new Set(Object.entries(handlers).flatMap(([operationId, handler]) => (readsOnlyCoalesced(handler) ? [operationId] : [])));
  app.use(pipeline({ config, db, logger, api, olderApis, authenticate, probes, ownProblemFormats: OWN_PROBLEM_FORMATS, coalescedReads }));
  return app;
}

/** Releases what an app holds besides its database (the deprecated uses being counted, the credential cache's LISTEN connection). */
export async function closeApp(app: express.Express): Promise<void> {
  await (app.locals.close as (() => Promise<void>) | undefined)?.();
}
