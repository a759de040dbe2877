import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import cors from 'cors';

/**
 * Response headers every answer carries (helmet): `X-Content-Type-Options: nosniff` above all, so
 * a browser never reinterprets a JSON or problem body as something else. The content security
 * policy is left out: the only HTML served is the Redoc page, which runs its own inline bundle.
 */
export function securityHeaders(): RequestHandler {
  return helmet({ contentSecurityPolicy: false });
}

/**
 * Answers to a request carrying credentials hold one organization's data: no shared or private
 * cache may keep them (`Cache-Control: no-store`). Set before anything answers, so errors carry it too.
 */
export function noStoreWithCredentials(req: Request, res: Response, next: NextFunction): void {
  if (req.headers.authorization !== undefined) res.setHeader('Cache-Control', 'no-store');
  next();
}

/** Headers a browser client may read from a cross-origin answer. */
const EXPOSED = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Location', 'ETag', 'Link', 'WWW-Authenticate', 'X-Request-Id'];

/**
 * CORS is off (no Access-Control-* header, preflights unanswered) unless CORS_ORIGINS lists the
 * browser origins allowed; then those origins get CORS answers and their preflights a 204.
 */
export function corsFor(origins: string[]): RequestHandler | undefined {
  if (!origins.length) return undefined;
  return cors({
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}
