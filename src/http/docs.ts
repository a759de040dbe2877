import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors';
import { GENERATED_DIR } from '../paths';
import { loadContract } from './contract';

/**
 * The docs page loads nothing from another host (scripts/docs.mjs drops Redoc's one CDN image), and
 * says so to the browser: its inline script and styles run, images and fonts may be inline (data:,
 * blob:), everything else comes from this server. The policy is about origins, not eval: Redoc's
 * search probes `Function(...)` to run FlexSearch in a blob: worker, and a refused probe would log an
 * error on every load (hence 'unsafe-eval' and worker-src blob:).
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; object-src 'none'; base-uri 'self'";

/**
 * The contract and its docs, without authentication: one middleware with a set of paths (as
 * express routes: any case, an optional trailing slash), not a route per path, which every API
 * request would otherwise walk through.
 * The Redoc page routes each tag to /<tag-slug> and each guide to /section/<slug>. A browser
 * navigating there (HTML preferred, no credentials) gets the page, so links and reloads work;
 * API clients (JSON or *\/*, or any Authorization) reach the API as usual.
 */
export function docsAndContract(): (req: Request, res: Response, next: NextFunction) => void {
  const docsPage = join(GENERATED_DIR, 'docs', 'index.html');
  const docsRoutes = new Set(((loadContract().tags ?? []) as { name: string }[]).map((t) => '/' + t.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')));
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1).toLowerCase() : req.path.toLowerCase();
    // The root points a newcomer (browser or curl) at the docs and the contract.
    if (path === '/') return void res.json({ name: 'Construction Procurement API', docs: '/docs', openapi: '/openapi.json', openapiYaml: '/openapi.yaml' });
    if (path === '/openapi.json') return res.sendFile(join(GENERATED_DIR, 'openapi.json'));
    if (path === '/openapi.yaml') return res.type('application/yaml').sendFile(join(GENERATED_DIR, 'openapi.yaml'));
    if (path !== '/docs') {
      if (!docsRoutes.has(path) && !path.startsWith('/section/')) return next();
      // Content negotiation only on the few docs paths: it is not free on every API request.
      const browser =
        !req.headers.authorization && req.accepts(['application/json', 'text/html']) === 'text/html' && /text\/html/.test(req.headers.accept ?? '');
      if (!browser) return next();
    }
    if (existsSync(docsPage)) return res.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY).sendFile(docsPage);
    next(new ApiError(404, 'not-found', 'Not found', [{ message: 'The docs page has not been built; run `npm run docs`.' }]));
  };
}
