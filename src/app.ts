import express, { NextFunction, Request, Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';
import type { Db } from './db/knex';
import { makeAuthenticator } from './auth/credentials';
import { tokenValidationFail } from './auth/token';
import { createBackend } from './http/backend';
import { createDispatch } from './http/dispatch';
import { ApiError } from './http/errors';
import { errorMiddleware } from './http/problem';
import { loadContract } from './http/contract';
import { parseQuery } from './http/query';
import { requestId } from './http/request-id';
import { GENERATED_DIR } from './paths';
import { allHandlers } from './resources';
import { settleCredentialCheck } from './db/credential-check';
import type { Caller } from './http/handler';

export interface AppOptions {
  db: Db;
  config: Config;
  jwtSecret: string;
}

const BODY_LIMIT = '5mb';
const TOKEN_PATH = '/oauth2/token';

const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/**
 * A body must be JSON (the token endpoint takes a form, per RFC 6749, and answers in its own
 * format). Requests without a body, most of them, pass straight on.
 */
function jsonBody(): (req: Request, res: Response, next: NextFunction) => void {
  const parseJson = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  const parseForm = express.urlencoded({ extended: false, limit: '16kb' });
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    if (req.path === TOKEN_PATH) return parseForm(req, res, (err) => (err ? next(err) : parseJson(req, res, next)));
    if (req.is(['application/json', 'application/*+json'])) return parseJson(req, res, next);
    next(
      new ApiError(415, 'unsupported-media-type', 'Unsupported media type', [
        { message: `body: Content-Type must be application/json, not ${req.headers['content-type'] ?? 'missing'}`, field: 'body', rule: 'contentType' },
      ]),
    );
  };
}

export async function createApp({ db, config, jwtSecret }: AppOptions): Promise<express.Express> {
  const authenticate = makeAuthenticator(db, jwtSecret);
  const api = await createBackend(
    {
      db,
      validateResponses: config.mode === 'test',
      authenticate,
      validationFailFor: { issueToken: tokenValidationFail },
    },
    allHandlers(jwtSecret),
  );

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.use(requestId);
  if (config.logRequests) {
    app.use((req, res, next) => {
      const start = process.hrtime.bigint();
      res.on('finish', () => console.log(`${req.method} ${req.originalUrl} ${res.statusCode} ${Number(process.hrtime.bigint() - start) / 1e6}ms`));
      next();
    });
  }

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
      const browser = !req.headers.authorization && req.accepts(['application/json', 'text/html']) === 'text/html' && /text\/html/.test(req.headers.accept ?? '');
      if (!browser) return next();
    }
    if (existsSync(docsPage)) return res.sendFile(docsPage);
    next(new ApiError(404, 'not-found', 'Not found', [{ message: 'The docs page has not been built; run `npm run docs`.' }]));
  });

  app.use(jsonBody());

  const dispatch = createDispatch(api);
  app.use((req, res, next) => {
    // HEAD is answered as GET (express sends the headers without the body).
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    dispatch({ method, path: req.path, query: req.query as any, headers: req.headers as any, body: req.body }, req, res)
      // A request refused before its handler (400, 404, 405) still settles its credential first.
      .catch((err) => settleCredentialCheck(db, (res.locals.caller as Caller | undefined)?.check).then(() => next(err), next));
  });
  app.use(errorMiddleware);
  return app;
}
