import pino, { type Logger, type DestinationStream } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Structured JSON logs (pino): one line per request at `info`, with the request id every response
 * carries (X-Request-Id, src/http/request-id.ts), the caller's organization, the contract's
 * operationId, the status and the duration. Request headers and bodies are not logged; anything
 * secret that reaches a log object anyway (an error carrying a header, a form) is redacted.
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'access_token',
  'accessToken',
  'apiKey',
  'api_key',
  'token',
  'key',
];
// At the top of a log object and one level down (pino's paths take no deeper wildcards cheaply).
const REDACT = ['req.headers.authorization', 'req.headers.cookie', ...SECRET_KEYS, ...SECRET_KEYS.map((k) => `*.${k}`)];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'procurement-api' } }, destination);
}

type Req = IncomingMessage & { id?: unknown };
type Res = ServerResponse & { locals?: Record<string, any> };

/** The request-log middleware; mount it after requestId (whose id it reuses). */
export function requestLogger(logger: Logger) {
  return pinoHttp<Req, Res>({
    logger,
    genReqId: (_req, res) => (res as Res).locals?.requestId,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
    // The request id as a binding of the request's logger (req.log), on every line it writes.
    quietReqLogger: true,
    // Only what an operator needs; never headers or the query string (a filter may hold anything).
    serializers: {
      req: (req: { method: string; url: string; originalUrl?: string }) => ({ method: req.method, path: (req.originalUrl ?? req.url).split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    wrapSerializers: false,
    customProps: (_req, res) => {
      const locals = (res as Res).locals ?? {};
      return { organizationId: locals.caller?.organizationId, operationId: locals.operationId };
    },
    customSuccessObject: (_req, res, value) => ({ ...value, status: res.statusCode }),
    customErrorObject: (_req, res, _err, value) => ({ ...value, status: res.statusCode }),
    // Client errors are the client's business (info); a 5xx line is an error an operator must see.
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  }) as unknown as (req: Request, res: Response, next: () => void) => void;
}
