import { timingSafeEqual, createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { contextOf } from './context';
import { httpRequestDuration, httpRequestsTotal, registry } from '../metrics';

/**
 * Counts and times every request by the contract's operationId (from the request's context;
 * requests that match no operation share one label so unknown paths cannot grow the series).
 */
export function observeRequests(req: Request, res: Response, next: NextFunction): void {
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    const labels = { operationId: String(contextOf(req).operationId ?? 'unmatched'), method: req.method, status: String(res.statusCode) };
    httpRequestsTotal.inc(labels);
    httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
  });
  next();
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics in Prometheus text format for `Authorization: Bearer <METRICS_TOKEN>`. Without a
 * token configured the endpoint does not exist (the request goes on to the API, which answers 404).
 */
export function metricsRoute(token: string | undefined) {
  const expected = token ? digest(token) : undefined;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!expected || req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    contextOf(req).operationId = 'metrics';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    // Compared as digests: equal length, constant time, whatever the caller sent.
    if (!m || !timingSafeEqual(digest(m[1]), expected)) {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.type('text/plain').end('A bearer token (METRICS_TOKEN) is required.\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type(registry.contentType).end(await registry.metrics());
  };
}
