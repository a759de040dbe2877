import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { contextOf } from './context';

/**
 * The request-log middleware; mount it after requestId (whose id it reuses). One line when the
 * response is finished ('request completed') or the client went away first ('request aborted'):
 * an `error` line for a 5xx, `info` otherwise (client errors are the client's business). A 5xx the
 * service did not mean (an unexpected error, see problem.ts) carries that error as `err`.
 *
 * Written here on pino rather than with pino-http: pino-http builds a child logger for every request
 * (bindings serialized, level set up, redaction prepared) whether or not the line is ever written;
 * this writes one plain object. Only what an operator needs: never headers or the query string (a
 * filter may hold anything). That line is built here from fields that cannot hold a secret, so it
 * is written without redaction, which would otherwise walk every line for the secret paths (the
 * costliest part of logging a request); a line carrying an error goes through the redacting logger.
 */
export function requestLogger(logger: Logger) {
  const plain = logger.child({}, { redact: [] });
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = performance.now();
    const context = contextOf(req);
    context.logged = true;
    const done = (message: 'request completed' | 'request aborted') => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        requestId: context.requestId,
        req: { method: req.method, path: (req.originalUrl ?? req.url).split('?')[0] },
        res: { status },
        status,
        organizationId: context.caller?.organizationId,
        operationId: context.operationId,
        durationMs: Math.round(performance.now() - start),
      };
      const err = context.unexpectedError;
      if (err !== undefined) logger[level]({ ...line, err }, message);
      else plain[level](line, message);
    };
    res.once('finish', () => done('request completed'));
    res.once('close', () => {
      if (!res.writableFinished) done('request aborted');
    });
    next();
  };
}

/**
 * An error the service did not mean, met while answering: logged on the request's own line (as
 * `err`, redacted, with its request id) so an operator finds it; without the request log (a bare
 * app in a test), on stderr.
 */
export function logUnexpected(res: Response, err: unknown): void {
  const context = contextOf(res.req);
  if (context.logged) context.unexpectedError = err;
  else console.error(`[${context.requestId}] ${res.req?.method} ${res.req?.path}:`, err);
}
